import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation

/// What `--json` prints: stable field names, times in ISO 8601.
enum AdminJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    struct Account: Encodable {
        var id: String
        var displayName: String
        var emails: [String]
        var createdAt: Date
        var disabledAt: Date?
        var isAdmin: Bool

        init(_ record: AccountRecord) {
            id = record.user.id.uuidString
            displayName = record.user.displayName
            emails = record.emails
            createdAt = record.createdAt
            disabledAt = record.disabledAt
            isAdmin = record.isAdmin
        }
    }

    struct Identity: Encodable {
        var issuer: String
        var subject: String
        var email: String?
        var emailVerified: Bool
    }

    struct Session: Encodable {
        var id: String
        var method: String
        var userAgent: String?
        var ip: String?
        var createdAt: Date
        var lastUsedAt: Date

        init(_ record: SessionRecord) {
            id = record.id.uuidString
            method = record.method
            userAgent = record.userAgent
            ip = record.ip
            createdAt = record.createdAt
            lastUsedAt = record.lastUsedAt
        }
    }

    struct Details: Encodable {
        var account: Account
        var identities: [Identity]
        var hasPassword: Bool
        var sessions: [Session]

        init(_ details: AdminService.AccountDetails) {
            account = Account(details.account)
            identities = details.identities.map {
                Identity(issuer: $0.key.issuer, subject: $0.key.subject, email: $0.email, emailVerified: $0.emailVerified)
            }
            hasPassword = details.hasPassword
            sessions = details.sessions.map(Session.init)
        }
    }

    struct Event: Encodable {
        var at: Date
        var event: String
        var userID: String?
        var method: String?
        var ip: String?
        var userAgent: String?
        var detail: String?
        var actor: String?

        init(_ event: AuditEvent) {
            at = event.at
            self.event = event.event
            userID = event.userID?.uuidString
            method = event.method
            ip = event.client.ip
            userAgent = event.client.userAgent
            detail = event.detail
            actor = event.actor?.description
        }
    }

    /// A change's outcome.
    struct Done: Encodable {
        var action: String
        var userID: String
        var sessionsEnded: Int?
    }
}

/// Text output: one line per account or event, columns separated by two spaces.
enum AdminText {
    static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func account(_ record: AccountRecord) -> String {
        var flags: [String] = []
        if record.isAdmin { flags.append("admin") }
        if let disabled = record.disabledAt { flags.append("disabled since \(time(disabled))") }
        return [record.user.id.uuidString, record.user.displayName, record.emails.first ?? "-", "created \(time(record.createdAt))"]
            .joined(separator: "  ") + (flags.isEmpty ? "" : "  [" + flags.joined(separator: ", ") + "]")
    }

    static func details(_ d: AdminService.AccountDetails) -> String {
        var lines = [account(d.account), "identities:"]
        lines += d.identities.map { "  \($0.key.issuer)  \($0.key.subject)  \($0.email ?? "-")\($0.emailVerified ? " (verified)" : "")" }
        if d.hasPassword { lines.append("  password") }
        lines.append("sessions: \(d.sessions.count)")
        lines += d.sessions.map {
            "  \($0.id.uuidString)  \($0.method)  \($0.userAgent ?? "-")  \($0.ip ?? "-")  created \(time($0.createdAt))  used \(time($0.lastUsedAt))"
        }
        return lines.joined(separator: "\n")
    }

    static func event(_ e: AuditEvent) -> String {
        [time(e.at), e.event, e.userID?.uuidString ?? "-", e.method ?? "-", e.client.ip ?? "-", e.detail ?? "", e.actor.map { "by \($0)" } ?? ""]
            .filter { !$0.isEmpty }.joined(separator: "  ")
    }
}
