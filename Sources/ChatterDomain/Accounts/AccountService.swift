import ChatterCore
import ChatterWire
import Foundation

/// What a signed-in user does with their own account, audited alike whether they ask through the native
/// API or the account page: read their profile and sessions, end this session or all of them, one other
/// session, or the whole account.
package struct AccountService: Sendable {
    /// `AdminRepository` only to read whether the account is an operator's (the account page links to /admin).
    package typealias Store = SessionRepository & UserRepository & AdminRepository & AuditRepository

    let store: any Store
    package let profiles: Profiles
    package let devices: DeviceTokens
    package let audit: AuditLog
    package let stepUp: StepUp
    package let appleTokens: AppleTokens
    package let notices: AccountNotices

    package func profile(_ user: User) async throws -> UserProfile {
        try await profiles.profile(user)
    }

    /// The user's sessions, oldest first.
    /// The name pages and new chatts show, as the person chose it: cleaned as every shown name is
    /// (`DisplayText`), refused when nothing is left or it is over `Limits.nameCharacters` (a name a provider
    /// sends is shortened instead; one typed here can be typed again). Chatts keep the name they were posted
    /// under. The session cache is emptied with the write, so every session sees the new name at once.
    @discardableResult
    package func rename(_ session: AuthenticatedSession, to raw: String) async throws -> String {
        let name = DisplayText.clean(raw)
        guard !name.isEmpty else { throw AccountError.emptyName }
        if name.exceeds(Limits.nameCharacters) { throw InvalidInput.tooLong(field: "name", limit: Limits.nameCharacters) }
        try await store.accountTransaction { try await $0.setDisplayName(name, userID: session.user.id) }
        return name
    }

    package func sessions(of user: User) async throws -> [SessionRecord] {
        try await store.sessions(of: user.id)
    }

    /// What changed how the account signs in or who is signed in to it, newest first, from the audit log, at
    /// most `limit` (and never over `historyLimit`): the events its owner is mailed about, and new recovery codes and sessions ended.
    package func history(of user: User, limit: Int = historyLimit) async throws -> [AccountEvent] {
        try await store.auditEvents(AuditFilter(userID: user.id, events: Self.historyEvents.map(\.rawValue), limit: min(limit, Self.historyLimit))).map {
            AccountEvent(kind: $0.event, at: $0.at.timeIntervalSince1970, userAgent: $0.actor == nil ? $0.client.userAgent : nil, byOperator: $0.actor != nil)
        }
    }

    package static let historyLimit = 50
    package static let historyEvents: [AuditLog.Event] = [
        .passkeyAdded, .passkeyRemoved, .secondFactorEnabled, .secondFactorDisabled, .recoveryCodeUsed, .recoveryCodesRegenerated,
        .passwordChanged, .passwordReset, .passwordSet, .emailChanged, .signOutAll, .sessionRevoked, .adminSecondFactorReset,
    ]

    package func isOperator(_ user: User) async throws -> Bool {
        try await store.isAdmin(userID: user.id)
    }

    package func signOut(_ session: AuthenticatedSession, everywhere: Bool, client: ClientInfo) async throws {
        if everywhere {
            try await stepUp.require(session)
            try await store.revokeSessions(of: session.user.id, except: nil)
            try await devices.endAll(of: session.user.id)
            await audit.record(.signOutAll, user: session.user.id, method: session.signInMethod, client: client)
        } else {
            _ = try await store.revokeSession(id: session.sessionID, userID: session.user.id)
            await audit.record(.signOut, user: session.user.id, method: session.signInMethod, client: client)
        }
    }

    /// Ends the user's session `id`; `SessionError.noSuchSession` when they have none by that id.
    package func revoke(_ id: UUID?, of session: AuthenticatedSession, client: ClientInfo) async throws {
        // As signing out everywhere does: ending others' sessions is what a thief would do first.
        try await stepUp.require(session)
        guard let id, try await store.revokeSession(id: id, userID: session.user.id) else { throw SessionError.noSuchSession }
        await audit.record(.sessionRevoked, user: session.user.id, client: client, detail: id.uuidString)
    }

    /// Removes the user, their identities, password, sessions and chatts, and revokes what Apple issued for the
    /// account; the audit log keeps the event.
    package func deleteAccount(_ session: AuthenticatedSession, client: ClientInfo) async throws {
        try await stepUp.require(session)
        // Read before the identities go with the account: where the notice goes.
        let address = try await store.identities(of: session.user.id).first { $0.emailVerified && $0.email != nil }?.email
        try await store.deleteUser(id: session.user.id)
        await audit.record(.accountDeleted, user: session.user.id, client: client)
        if let address { await notices.sendDeleted(to: address, client: client) }
        await appleTokens.revokePending(limit: AppleTokens.revokedAtOnce)
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        store: any Store, profiles: Profiles, devices: DeviceTokens, audit: AuditLog, stepUp: StepUp, appleTokens: AppleTokens, notices: AccountNotices
    ) {
        self.store = store
        self.profiles = profiles
        self.devices = devices
        self.audit = audit
        self.stepUp = stepUp
        self.appleTokens = appleTokens
        self.notices = notices
    }
}

/// What the account's own changes refuse.
public enum AccountError: Error, Equatable {
    /// A name with nothing left once cleaned.
    case emptyName
    /// A new address that is the account's already.
    case sameEmail
    /// A new address that another account signs in with.
    case emailTaken
}
