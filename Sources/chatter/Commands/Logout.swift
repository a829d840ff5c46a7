import ArgumentParser
import ChatterKit
import Foundation

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sign out here (and revoke the session on the server).")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Sign out every device.")
    var all = false

    func run() async throws {
        try await CommandContext.run(options) { context in
            if case .signedOut = await context.client.sessions.status() {
                context.output("Not signed in.", json: ["signedOut": true, "revokedOnServer": false])
                return
            }
            // A course chatterID cannot be revoked (the course API has no route for it); it just expires.
            let native = await context.client.sessions.currentSession?.kind == .native
            let confirmed = try await StepUp.asking(context) {
                try await withSpinner("Signing out…") { try await context.client.sessions.signOut(all: all) }
            }
            if native, !confirmed { context.console.writeError("warning: the server could not be told; the session was deleted here only.") }
            context.output(all ? "Signed out everywhere." : "Signed out.", json: ["signedOut": true, "revokedOnServer": confirmed])
        }
    }
}
