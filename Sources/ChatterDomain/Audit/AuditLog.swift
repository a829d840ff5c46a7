import ChatterCore
import Foundation
import Logging

/// Security events, kept in the audit table. Recording never fails a request: a storage error
/// is logged instead. Details never contain secrets.
public struct AuditLog: Sendable {
    public enum Event: String, Sendable, CaseIterable {
        case signIn = "sign_in"
        case signInFailed = "sign_in_failed"
        case refreshReused = "refresh_reused"
        case signOut = "sign_out"
        case signOutAll = "sign_out_all"
        case sessionRevoked = "session_revoked"
        case passwordChanged = "password_changed"
        case passwordChangeFailed = "password_change_failed"
        case passwordReset = "password_reset"
        /// A first password, set on an account that had none (a sign-up on its address).
        case passwordSet = "password_set"
        case emailChanged = "email_changed"
        case accountDeleted = "account_deleted"
        case appleConsentRevoked = "apple_consent_revoked"
        case appleAccountDeleted = "apple_account_deleted"
        case appleEmailChanged = "apple_email_changed"
        case passkeyAdded = "passkey_added"
        case passkeyRemoved = "passkey_removed"
        /// A registration that failed a WebAuthn check (the detail names it).
        case passkeyRejected = "passkey_rejected"
        /// A passkey's counter went backwards: it may have been copied, and signs in no more.
        case passkeyFlagged = "passkey_flagged"
        /// An authenticator app confirmed: the account has a second factor (the detail says how many recovery codes).
        case secondFactorEnabled = "second_factor_enabled"
        case secondFactorDisabled = "second_factor_disabled"
        /// A second-factor code refused (wrong, used, or past the limit), at sign-in or for an account action.
        case secondFactorFailed = "second_factor_failed"
        /// A recovery code used in place of the app's code (also mailed to the account).
        case recoveryCodeUsed = "recovery_code_used"
        case recoveryCodesRegenerated = "recovery_codes_regenerated"
        // An operator's actions (`AdminService`): the event's user is the account acted on, its actor the operator.
        case adminSessionRevoked = "admin_session_revoked"
        case adminSessionsRevoked = "admin_sessions_revoked"
        case accountDisabled = "account_disabled"
        case accountEnabled = "account_enabled"
        case adminAccountDeleted = "admin_account_deleted"
        case adminGranted = "admin_granted"
        case adminRevoked = "admin_revoked"
        /// An operator removed the account's second factor (its owner lost it).
        case adminSecondFactorReset = "admin_second_factor_reset"
    }

    let store: any AuditRepository & RateLimitRepository
    package let now: @Sendable () -> Date
    package let logger: Logger

    /// A refused sign-in that names no account (a refused ID token, a wrong code) costs its sender one
    /// request and chatterd one row. Each client network's such refusals are recorded up to this many per
    /// `refusalWindow`; past it they are only counted (`chatterd_sign_ins_total`,
    /// `chatterd_audit_refusals_dropped_total`), so a flood adds a bounded number of rows however long it
    /// lasts. A refusal that names an account (a wrong password, a disabled account) is always recorded:
    /// the account's own limits bound those, and its owner and operators need every one.
    package static let refusalsPerNetwork = 30
    /// The detail of a sign-in an operator's "disable" refused.
    package static let accountDisabled = "account_disabled"
    package static let refusalWindow: Double = 600

    public func record(
        _ event: Event, user: UUID? = nil, method: SignInMethod? = nil, client: ClientInfo, detail: String? = nil, actor: AuditActor? = nil
    ) async {
        // Sign-in details are closed sets (a token's failed check, "invalid code"), so they can be labels.
        if event == .signIn { ChatterMetrics.signIn(method: method?.rawValue ?? "unknown", outcome: "ok") }
        if event == .signInFailed {
            ChatterMetrics.signIn(method: method?.rawValue ?? "unknown", outcome: detail ?? "refused")
            if user == nil { guard await withinRefusalBudget(client) else { return } }
        }
        do {
            try await store.record(
                AuditEvent(at: now(), event: event.rawValue, userID: user, method: method?.rawValue, client: client, detail: detail, actor: actor))
        } catch {
            logger.error("audit event not recorded", metadata: ["event": "\(event.rawValue)", "error": "\(error)"])
        }
    }

    /// Runs `start` (the session a sign-in of `user` ends with) and records the sign-in, or, when an
    /// operator disabled the account, its refusal (then rethrown, for the 403).
    package func signIn<T: Sendable>(
        user: UUID, method: SignInMethod, client: ClientInfo, secondFactor: SecondFactorKind? = nil, _ start: () async throws -> T
    ) async throws -> T {
        do {
            let value = try await start()
            await record(.signIn, user: user, method: method, client: client, detail: secondFactor.map { "second factor: \($0.rawValue)" })
            return value
        } catch StoreError.accountDisabled {
            await record(.signInFailed, user: user, method: method, client: client, detail: Self.accountDisabled)
            throw StoreError.accountDisabled
        }
    }

    /// Whether this refusal from `client`'s network still fits the window's budget (counted in one store
    /// step, like every limit). When the count itself fails the refusal is recorded: losing the budget
    /// must not lose the audit.
    private func withinRefusalBudget(_ client: ClientInfo) async -> Bool {
        do {
            for (index, network) in client.limitKeys.enumerated() {
                let limit = ClientNetwork.limit(Self.refusalsPerNetwork, widenedFor: index)
                guard try await store.hit(RateLimitKeys.auditRefusals(network), window: Self.refusalWindow, at: now()) <= limit else {
                    ChatterMetrics.auditRefusalDropped()
                    return false
                }
            }
        } catch {
            logger.warning("counting a refused sign-in failed", metadata: ["error": "\(error)"])
        }
        return true
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(store: any AuditRepository & RateLimitRepository, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.now = now
        self.logger = logger
    }
}
