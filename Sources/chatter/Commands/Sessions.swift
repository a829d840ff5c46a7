import ArgumentParser
import ChatterKit
import Foundation

struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List your active sessions, or revoke one.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Revoke the session with this ID.")
    var revoke: String?

    func run() async throws {
        try await CommandContext.run(options) { context in
            if let revoke {
                try await withSpinner("Revoking…") { try await context.client.revokeSession(id: revoke) }
                context.output("Revoked \(revoke).", json: ["revoked": revoke])
                return
            }
            let list = try await withSpinner("Reading sessions…") { try await context.client.activeSessions() }
            if context.settings.json {
                context.console.write(
                    jsonText(
                        list.map {
                            ["id": $0.id, "userAgent": $0.userAgent ?? "", "createdAt": $0.createdAt, "lastUsedAt": $0.lastUsedAt, "current": $0.current]
                        }))
                return
            }
            for session in list {
                let used = Chatts.format(Date(timeIntervalSince1970: session.lastUsedAt))
                context.console.write("\(session.current ? "*" : " ") \(session.id)  last used \(used)  \(session.userAgent ?? "unknown client")")
            }
        }
    }
}
