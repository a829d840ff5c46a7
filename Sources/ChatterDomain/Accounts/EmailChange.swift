import ChatterCore
import ChatterWire
import Foundation

/// Changing the address an account signs in with by emailed code (F8: it changes how the account signs in):
/// a recent proof first, then a code to the new address, which proves it; the old address is told, and the
/// device tokens proven for it end. The account, its sessions and its other ways in stay as they are.
package struct EmailChange: Sendable {
    let store: any UserRepository
    package let codes: EmailCodeService
    package let stepUp: StepUp
    package let devices: DeviceTokens
    package let audit: AuditLog
    package let notices: AccountNotices
    package let now: @Sendable () -> Date

    /// Sends a code to `raw`, the new address, once the session proved it is its owner recently. The code's
    /// limits are the address's, as for any code.
    package func start(_ session: AuthenticatedSession, to raw: String, client: ClientInfo) async throws -> (address: String, sent: EmailCodeService.Sent) {
        try await stepUp.requireReauthentication(session)
        guard let address = EmailAddress.normalize(raw) else { throw SignInError.invalidEmail }
        let current = try await store.identities(of: session.user.id).first { $0.key.issuer == IdentityKey.emailIssuer }?.key.subject
        guard address != current else { throw AccountError.sameEmail }
        do {
            return (address, try await codes.send(to: address, purpose: .addressChange, client: client))
        } catch EmailCodeService.Failure.limited(let seconds) {
            throw LimitReached.counted(.emailCode, retryAfter: seconds)
        } catch EmailCodeService.Failure.coolingDown(let seconds) {
            throw LimitReached.counted(.emailCodeResend, retryAfter: seconds)
        }
    }

    /// The code proves `raw`; the account then signs in with it in place of the old address, decided in one
    /// store transaction (an address another account has is refused, even one it takes at the same moment).
    package func confirm(_ session: AuthenticatedSession, address raw: String, code: String, client: ClientInfo) async throws {
        try await stepUp.requireReauthentication(session)
        guard let address = EmailAddress.normalize(raw) else { throw SignInError.invalidEmail }
        do {
            try await codes.redeem(code, for: address)
        } catch EmailCodeService.Failure.invalidCode {
            throw SignInError.invalidCode
        }
        let userID = session.user.id
        switch try await store.changeEmailIdentity(userID: userID, to: address, at: now()) {
        case .taken: throw AccountError.emailTaken
        case .unchanged: return
        case .changed(let previous):
            // Devices remembered for the old address prove nothing about the new one.
            try await devices.endAll(of: userID)
            await audit.record(.emailChanged, user: userID, method: .email, client: client)
            let masked = Self.masked(address)
            if let previous { await notices.send(.emailChanged(to: masked), toFormer: previous, of: userID, client: client) }
            await notices.send(.emailChanged(to: masked), to: userID, client: client)
        }
    }

    /// `n***@example.com`: the old address learns where the account went without a stranger's mailbox
    /// reading the whole new address.
    package static func masked(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@"), let first = address.first, at != address.startIndex else { return "***" }
        return "\(first)***\(address[at...])"
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        store: any UserRepository, codes: EmailCodeService, stepUp: StepUp, devices: DeviceTokens, audit: AuditLog, notices: AccountNotices,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.codes = codes
        self.stepUp = stepUp
        self.devices = devices
        self.audit = audit
        self.notices = notices
        self.now = now
    }
}
