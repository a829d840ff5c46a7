import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation

struct AdminAudit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Read the audit log, newest first.",
        discussion: "Kinds: " + AuditLog.Event.allCases.map(\.rawValue).joined(separator: ", ") + ".")

    @Option(help: "Only events of this account (id or email).") var user: String?
    @Option(name: .customLong("kind"), help: "Only events of this kind (repeat for several).") var kinds: [String] = []
    @Option(help: "Only events at or after this time (ISO 8601: 2026-11-25 or 2026-11-25T10:00:00Z).") var since: String?
    @Option(help: "Only events before this time (ISO 8601).") var until: String?
    @Option(help: "At most this many events.") var limit = 100
    @OptionGroup var options: AdminOptions

    func validate() throws {
        let known = Set(AuditLog.Event.allCases.map(\.rawValue))
        if let unknown = kinds.first(where: { !known.contains($0) }) { throw ValidationError("\(unknown) is not a kind of audit event") }
        for (name, value) in [("since", since), ("until", until)] where value != nil && AuditTime.parse(value!) == nil {
            throw ValidationError("--\(name) \(value!) is not an ISO 8601 date or time")
        }
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() async throws {
        let filter = AuditFilter(events: kinds, since: since.flatMap(AuditTime.parse), until: until.flatMap(AuditTime.parse), limit: limit)
        let events = try await options.withAdmin { admin in
            var filter = filter
            if let user { filter.userID = try await admin.account(user).user.id }
            return try await admin.auditEvents(filter)
        }
        try options.print(events.map(AdminJSON.Event.init)) {
            events.isEmpty ? "no events" : events.map(AdminText.event).joined(separator: "\n")
        }
    }
}
