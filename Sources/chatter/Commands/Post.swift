import ArgumentParser
import ChatterKit
import Foundation

struct Post: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Post a chatt, signing in first if needed.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The message.")
    var message: String

    func run() async throws {
        try await CommandContext.run(options) { context in
            if try await needsSignIn(context) {
                context.console.writeError("Sign in to post.")
                try await signIn(context)
            }
            do {
                try await withSpinner("Posting…") { try await context.client.post(message) }
            } catch ChatterError.signedOut(let reason) {
                // The server ended the session: sign in once more and post the same message.
                context.console.writeError(ChatterError.signedOut(reason).message)
                try await signIn(context)
                try await withSpinner("Posting…") { try await context.client.post(message) }
            }
            context.output("Posted.", json: ["posted": true])
        }
    }

    /// Signs in at the prompt; with nobody to answer it (a script), says how to sign in instead.
    func signIn(_ context: CommandContext) async throws {
        do {
            _ = try await Login.interactive(context, email: nil, password: false)
        } catch ChatterError.cancelled {
            throw ChatterError.notSignedIn
        }
    }

    func needsSignIn(_ context: CommandContext) async throws -> Bool {
        switch await context.client.sessions.status() {
        case .valid, .expiring: return false
        case .signedOut, .expired: return true
        case .storageUnavailable(let error): throw ChatterError.storage(error)
        }
    }
}
