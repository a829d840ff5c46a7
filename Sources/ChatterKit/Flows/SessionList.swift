import Foundation
import Observation

/// The user's signed-in devices (F5), with revoke. Revoking this device's own session signs it out
/// properly (on the server and here), so the list never offers a way to strand the app half signed in.
@MainActor @Observable
public final class SessionList {
    /// One session as a row shows it.
    public struct Row: Identifiable, Equatable, Sendable {
        /// The session's ID, which `revoke(_:)` sends.
        public let id: String
        /// A short device name read from the session's user agent, such as "iPhone" or "chatter (terminal)".
        public let device: String
        /// When the session signed in.
        public let createdAt: Date
        /// When the session last made a request.
        public let lastUsedAt: Date
        /// The session this app is using.
        public let isCurrent: Bool
        /// The sign-in came from the genuine app on a genuine Apple device: App Attest vouched for it
        /// (`SessionInfo.attestedApp`).
        public let isVerifiedApp: Bool

        /// Makes a row from the server's description of a session.
        public init(_ info: SessionInfo) {
            id = info.id
            device = Self.deviceName(userAgent: info.userAgent)
            createdAt = Date(timeIntervalSince1970: info.createdAt)
            lastUsedAt = Date(timeIntervalSince1970: info.lastUsedAt)
            isCurrent = info.current
            isVerifiedApp = info.attestedApp != nil
        }

        /// "Signed in 3 Nov 2026 · used 5 minutes ago", in the user's locale.
        public var detail: String {
            let relative = Date.RelativeFormatStyle(presentation: .numeric, unitsStyle: .wide)
            let used = Date().timeIntervalSince(lastUsedAt) < 60 ? "just now" : relative.format(lastUsedAt)
            let verified = isVerifiedApp ? " · verified app" : ""
            return "Signed in \(createdAt.formatted(date: .abbreviated, time: .omitted)) · used \(used)\(verified)"
        }

        /// A person's name for the device behind a user agent; the full string means little to them.
        public static func deviceName(userAgent: String?) -> String {
            guard let agent = userAgent, !agent.isEmpty else { return "Unknown device" }
            let known: [(marker: String, name: String)] = [
                ("chatter/", "chatter (terminal)"), ("ChatterKit/", "Chatter app"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Watch", "Apple Watch"),
                ("Android", "Android"), ("Macintosh", "Mac"), ("Mac OS X", "Mac"), ("Windows", "Windows"), ("CrOS", "Chromebook"),
                ("Linux", "Linux"), ("CFNetwork", "Apple device"),
            ]
            let device = known.dropFirst(2).first { agent.contains($0.marker) }?.name
            if let app = ChatterKitAgent.appName(agent) {
                // The app by its own name, on its device.
                let model = agent.contains("macOS") ? "Mac" : device
                return model.map { "\(app) on \($0)" } ?? app
            }
            return known.first { agent.contains($0.marker) }?.name ?? "Unknown device"
        }
    }

    /// One change to how the account signs in, as the history under the list shows it.
    public struct HistoryRow: Identifiable, Equatable, Sendable {
        /// The row's place in the list, newest first.
        public let id: Int
        /// "Passkey added", "Password reset", …; an event this version does not know is named as the server sent it.
        public let title: String
        /// The device that did it, or "The server's operator".
        public let device: String
        /// When it happened.
        public let at: Date

        /// Makes a row from the server's event; `index` keeps rows of the same instant apart.
        public init(_ event: AccountEvent, index: Int) {
            id = index
            title = Self.titles[event.kind] ?? event.kind.replacingOccurrences(of: "_", with: " ")
            device = event.byOperator ? "The server's operator" : Row.deviceName(userAgent: event.userAgent)
            at = Date(timeIntervalSince1970: event.at)
        }

        static let titles = [
            "passkey_added": "Passkey added", "passkey_removed": "Passkey removed", "second_factor_enabled": "Two-step sign-in turned on",
            "second_factor_disabled": "Two-step sign-in turned off", "recovery_code_used": "Recovery code used",
            "recovery_codes_regenerated": "New recovery codes", "password_changed": "Password changed", "password_reset": "Password reset",
            "password_set": "Password set",
            "sign_out_all": "Signed out everywhere", "session_revoked": "A session was ended",
            "admin_second_factor_reset": "Two-step sign-in reset by the operator",
        ]
    }

    /// This device first, then the most recently used.
    public private(set) var rows: [Row] = []
    /// What changed how the account signs in, newest first: if a passkey appears that the user did not add,
    /// this is where they see it (chatterd mails them too).
    public private(set) var history: [HistoryRow] = []
    /// A load is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorMessage: String?
    /// Sessions whose revocation is on its way; their buttons are disabled.
    public private(set) var revoking: Set<String> = []
    /// This device's session was revoked from the list: the app is signed out.
    public private(set) var signedOutHere = false

    /// "Confirm it is you" for ending another device's session: present it while `stepUp.asking` is set.
    public let stepUp: StepUpPrompt

    @ObservationIgnored let client: ChatterClient

    /// A list over `client`'s session; `stepUp` (one of its own by default) asks for a fresh proof.
    public init(client: ChatterClient, stepUp: StepUpPrompt? = nil) {
        self.client = client
        self.stepUp = stepUp ?? StepUpPrompt(client: client)
    }

    /// Fetches the sessions; call when the screen appears and on pull to refresh.
    public func load() async {
        isLoading = true
        defer { isLoading = false }
        do {
            rows = try await client.activeSessions().map(Row.init).sorted {
                $0.isCurrent != $1.isCurrent ? $0.isCurrent : $0.lastUsedAt > $1.lastUsedAt
            }
            errorMessage = nil
        } catch {
            errorMessage = ChatterError.banner(for: error)
            return
        }
        // The history is extra: a server without it (an older chatterd) leaves the sessions shown.
        if let events = try? await client.accountHistory() {
            history = events.enumerated().map { HistoryRow($1, index: $0) }
        }
    }

    /// Whether the row's revoke button works.
    public func canRevoke(_ row: Row) -> Bool { !revoking.contains(row.id) && !signedOutHere }

    /// The revoke button's title: signing this device out is said as such.
    public func revokeTitle(for row: Row) -> String { row.isCurrent ? "Sign out" : "Revoke" }

    /// Ends the session; the row goes once the server confirms. This device's own row signs out here too.
    public func revoke(_ row: Row) async {
        guard canRevoke(row) else { return }
        revoking.insert(row.id)
        defer { revoking.remove(row.id) }
        do {
            if row.isCurrent {
                try await client.sessions.signOut()
                signedOutHere = true
            } else {
                // Given up at "confirm it is you": the row stays, and nothing is said.
                guard try await stepUp.perform(.endSession, { try await self.client.revokeSession(id: row.id) }) else { return }
            }
            rows.removeAll { $0.id == row.id }
            errorMessage = nil
        } catch {
            errorMessage = ChatterError.banner(for: error)
        }
    }
}
