import ChatterCore
import Foundation
import Logging

/// What an operator can do to accounts, from `chatterd admin` or the admin pages: the same rules and the
/// same audit either way. Every change is recorded with the operator as its actor.
public struct AdminService: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noSuchAccount(String)
        /// Several accounts have an identity with this email: name one by its id.
        case ambiguousEmail(String, [UUID])
        case noSuchSession(UUID)
        /// The admin pages, to an account that is not an operator's.
        case notAnOperator
        /// An operator changing their own account from the admin pages (their account page does that).
        case ownAccount
        /// The admin pages, to an operator whose account has no second factor (`OperatorAccess`).
        case operatorWithoutSecondFactor
        /// Resetting the second factor of an account that has none.
        case noSecondFactor(UUID)

        public var description: String {
            switch self {
            case .noSuchAccount(let reference): "no account is \(reference)"
            case .ambiguousEmail(let email, let ids):
                "\(ids.count) accounts have an identity with the email \(email); name one by its id: "
                    + ids.map(\.text).joined(separator: ", ")
            case .noSuchSession(let id): "the account has no session \(id.text)"
            case .notAnOperator: "these pages are for the server's operators"
            case .ownAccount: "use your account page to change your own account"
            case .operatorWithoutSecondFactor: "operators need two-step sign-in: turn it on from your account page first"
            case .noSecondFactor(let id): "the account \(id.text) has no second factor"
            }
        }
    }

    /// An account as the admin pages and `chatterd admin user` show it.
    public struct AccountDetails: Sendable, Equatable {
        public var account: AccountRecord
        public var identities: [Identity]
        public var hasPassword: Bool
        public var sessions: [SessionRecord]
    }

    package typealias Store = AdminRepository & UserRepository & SessionRepository & DeviceTokenRepository & AuditRepository & SecondFactorRepository

    let store: any Store
    package let audit: AuditLog
    /// Tells an account's owner what an operator changed that they must know of (a second factor reset).
    package let notices: AccountNotices?
    /// Revokes a deleted account's Apple tokens at once; nil (`chatterd admin`) leaves them to the serving
    /// chatterd's next purge, since the deletion marked them in its transaction.
    package let appleTokens: AppleTokens?
    package let now: @Sendable () -> Date

    /// `mail`: where notices to an account's owner go (`chatterd admin` sends them as `chatterd serve` would);
    /// nil sends none.
    public init(
        store: any ChatterStore, mail: (any MailTransport)? = nil, sender: String = "Chatter <no-reply@localhost>",
        now: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.init(
            store: store, audit: AuditLog(store: store, now: now, logger: logger),
            notices: mail.map { AccountNotices(users: store, mail: $0, sender: sender, logger: logger) }, now: now)
    }

    package init(store: any Store, audit: AuditLog, notices: AccountNotices? = nil, appleTokens: AppleTokens? = nil, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.audit = audit
        self.notices = notices
        self.appleTokens = appleTokens
        self.now = now
    }

    /// The account `reference` names: its id, or an email one of its identities carries (when only one does).
    public func account(_ reference: String) async throws -> AccountRecord {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        if let id = UUID(uuidString: trimmed) {
            guard let account = try await store.account(id: id) else { throw Failure.noSuchAccount(trimmed) }
            return account
        }
        let found = try await store.accounts(withEmail: trimmed)
        guard let first = found.first else { throw Failure.noSuchAccount(trimmed) }
        guard found.count == 1 else { throw Failure.ambiguousEmail(trimmed, found.map(\.user.id)) }
        return first
    }

    /// `user`, when an operator has marked their account; `Failure.notAnOperator` otherwise. Read from the
    /// database every time (no cache holds it), so revoking operator rights takes effect at once.
    package func requireOperator(_ user: User) async throws {
        guard try await store.isAdmin(userID: user.id) else { throw Failure.notAnOperator }
    }

    /// The account `id` for operator `actor` to change: never their own.
    package func target(_ id: UUID, changedBy actor: User) throws -> UUID {
        guard id != actor.id else { throw Failure.ownAccount }
        return id
    }

    public func account(id: UUID) async throws -> AccountRecord {
        guard let account = try await store.account(id: id) else { throw Failure.noSuchAccount(id.text) }
        return account
    }

    /// Newest first; every account when `text` is nil or empty.
    public func find(_ text: String?, limit: Int = 100) async throws -> [AccountRecord] {
        let query = text?.trimmingCharacters(in: .whitespaces)
        return try await store.findAccounts(matching: query?.isEmpty == false ? query : nil, limit: max(1, limit))
    }

    public func details(of id: UUID) async throws -> AccountDetails {
        guard let account = try await store.account(id: id) else { throw Failure.noSuchAccount(id.text) }
        let summary = try await store.accountSummary(userID: id)
        return AccountDetails(
            account: account, identities: summary.identities, hasPassword: summary.hasPassword, sessions: try await store.sessions(of: id))
    }

    public func endSession(_ sessionID: UUID, of userID: UUID, by actor: AuditActor, client: ClientInfo = ClientInfo()) async throws {
        guard try await store.revokeSession(id: sessionID, userID: userID) else { throw Failure.noSuchSession(sessionID) }
        await audit.record(.adminSessionRevoked, user: userID, client: client, detail: sessionID.text, actor: actor)
    }

    /// Returns how many sessions ended.
    @discardableResult
    public func endSessions(of userID: UUID, by actor: AuditActor, client: ClientInfo = ClientInfo()) async throws -> Int {
        let ended = try await store.revokeSessions(of: userID, except: nil)
        try await store.deleteDeviceTokens(userID: userID)
        await audit.record(.adminSessionsRevoked, user: userID, client: client, detail: Self.sessions(ended), actor: actor)
        return ended
    }

    /// A disabled account's sessions and device tokens end with it and it cannot sign in until enabled
    /// again. Returns how many sessions ended.
    @discardableResult
    public func setDisabled(_ disabled: Bool, userID: UUID, by actor: AuditActor, client: ClientInfo = ClientInfo()) async throws -> Int {
        guard let ended = try await store.setDisabled(disabled, userID: userID, at: now()) else { throw Failure.noSuchAccount(userID.text) }
        if disabled { try await store.deleteDeviceTokens(userID: userID) }
        await audit.record(
            disabled ? .accountDisabled : .accountEnabled, user: userID, client: client, detail: disabled ? Self.sessions(ended) + " ended" : nil,
            actor: actor)
        return ended
    }

    /// Removes the account as its owner's deletion does (identities, password, sessions, chatts, Apple's tokens).
    public func delete(userID: UUID, by actor: AuditActor, client: ClientInfo = ClientInfo()) async throws {
        guard try await store.account(id: userID) != nil else { throw Failure.noSuchAccount(userID.text) }
        try await store.deleteUser(id: userID)
        await audit.record(.adminAccountDeleted, user: userID, client: client, actor: actor)
        await appleTokens?.revokePending(limit: AppleTokens.revokedAtOnce)
    }

    /// Marks the account as an operator (it may use the admin pages), or unmarks it.
    public func setAdmin(_ isAdmin: Bool, userID: UUID, by actor: AuditActor, client: ClientInfo = ClientInfo()) async throws {
        guard try await store.setAdmin(isAdmin, userID: userID) else { throw Failure.noSuchAccount(userID.text) }
        await audit.record(isAdmin ? .adminGranted : .adminRevoked, user: userID, client: client, actor: actor)
    }

    /// Removes the account's authenticator and recovery codes, for an owner who lost both; sign-ins waiting
    /// for a code end too. Audited with the operator, and mailed to the account's address.
    public func resetSecondFactor(userID: UUID, by actor: AuditActor, client: ClientInfo = ClientInfo()) async throws {
        guard try await store.account(id: userID) != nil else { throw Failure.noSuchAccount(userID.text) }
        guard try await store.deleteSecondFactor(userID: userID) else { throw Failure.noSecondFactor(userID) }
        await audit.record(.adminSecondFactorReset, user: userID, client: client, actor: actor)
        await notices?.send(.operatorResetSecondFactor, to: userID, client: nil)
    }

    /// "1 session", "2 sessions": for messages and audit details.
    public static func sessions(_ count: Int) -> String { count == 1 ? "1 session" : "\(count) sessions" }

    public func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent] {
        try await store.auditEvents(filter)
    }
}
