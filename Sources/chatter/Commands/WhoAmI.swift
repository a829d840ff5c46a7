import ArgumentParser
import ChatterKit
import Foundation

struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show who is signed in.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await CommandContext.run(options) { context in
            let profile = try await withSpinner("Asking the server…") { try await context.client.me() }
            guard let session = await context.client.sessions.currentSession else { throw ChatterError.notSignedIn }
            var json = sessionJSON(session)
            json["methods"] = profile.methods
            var text = "\(profile.displayName)"
            if let email = profile.email { text += " <\(email)>" }
            let ends = Chatts.format(session.refreshExpiresAt ?? session.accessExpiresAt)
            text += "\n\(session.kind == .course ? "course chatterID" : "session"), valid until \(ends)"
            if !profile.methods.isEmpty { text += "\nsign-in methods: \(profile.methods.joined(separator: ", "))" }
            context.output(text, json: json)
        }
    }
}
