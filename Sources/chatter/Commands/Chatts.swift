import ArgumentParser
import ChatterKit
import Foundation

struct Chatts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the timeline, oldest first; your own chatts are marked with *.")

    @OptionGroup var options: GlobalOptions

    struct Line {
        var name: String
        var message: String
        var time: Date?
        var mine: Bool
    }

    func run() async throws {
        try await CommandContext.run(options) { context in
            let me = await context.client.sessions.status()
            let lines = try await withSpinner("Reading chatts…") { try await timeline(context, me) }
            if context.settings.json {
                context.console.write(
                    jsonText(
                        lines.map { line -> [String: Any] in
                            ["name": line.name, "message": line.message, "time": line.time.map { $0.formatted(.iso8601) } ?? "", "mine": line.mine]
                        }))
                return
            }
            if lines.isEmpty { context.console.write("No chatts yet.") }
            for line in lines {
                context.console.write("\(line.mine ? "*" : " ") \(line.time.map(Self.format) ?? "?")  \(line.name): \(line.message)")
            }
        }
    }

    /// The native timeline marks chatts by user ID; a course server (no /v1) only has names to go by.
    func timeline(_ context: CommandContext, _ state: LaunchState) async throws -> [Line] {
        var session: AuthSession?
        if case .valid(let current) = state { session = current }
        if case .expiring(let current) = state { session = current }
        do {
            var items: [ChattItem] = []
            var cursor: String?
            repeat {
                let page = try await context.client.chatts(before: cursor)
                items += page.chatts
                cursor = page.next
            } while cursor != nil && items.count < 1_000
            return items.reversed().map { item in
                Line(
                    name: item.name, message: item.message, time: Date(timeIntervalSince1970: item.time),
                    mine: Self.isMine(userID: item.userID, name: item.name, session))
            }
        } catch ChatterError.server(404, _) {
            return try await context.client.courseChatts().map { row in
                Line(
                    name: row.name, message: row.message, time: try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(row.time),
                    mine: Self.isMine(userID: nil, name: row.name, session))
            }
        }
    }

    /// A native session knows its user ID; a course chatterID knows only the name it posts under.
    static func isMine(userID: String?, name: String, _ session: AuthSession?) -> Bool {
        guard let session else { return false }
        if let id = session.user?.id { return userID == id }
        return name == session.username
    }

    /// Local time, to the minute: people read this; scripts use --json, which has UNIX times.
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
