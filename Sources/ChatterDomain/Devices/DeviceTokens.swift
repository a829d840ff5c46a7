import ChatterCore
import Foundation

/// Device tokens, as OWASP's "device cookies" describe: a device that signed in to an address once gets a
/// secret that later proves it is that device. Its password attempts and code requests then draw on an
/// allowance of its own, so failures from anywhere else — an attacker guessing, a stranger asking for
/// codes — never lock the owner's device out.
///
/// Because a token widens what a device may try, each has a lifecycle: it names one address (of an
/// account that verified it), lives `lifetime` from issue, an address keeps at most `perAddress` (a
/// sign-in that presents a live one keeps it rather than minting another), and every token of an account
/// ends when its credentials change or its sessions are all ended: a password change or reset, signing
/// out everywhere, an operator disabling it or ending its sessions, and deletion.
public struct DeviceTokens: Sendable {
    /// How long a token proves its device; a sign-in within it keeps the same token.
    public static let lifetime: Double = 90 * 86_400
    /// Devices an address may have at once; a new one pushes out the oldest.
    public static let perAddress = 5

    let store: any DeviceTokenRepository
    package let now: @Sendable () -> Date

    /// The token the device keeps for `email`: `presented` when it is a live token of that address, else a
    /// new one (only its hash is kept).
    public func issue(for email: String, presented: String? = nil) async throws -> String {
        if let presented, try await device(presented, for: email) != nil { return presented }
        let token = SessionToken.generate()
        try await store.storeDeviceToken(hash: token.hash, email: email, at: now(), keeping: Self.perAddress)
        return token.secret
    }

    /// The device `presented` names, when it was issued for `email` and has not expired: the key of its own allowance.
    public func device(_ presented: String?, for email: String) async throws -> Device? {
        guard let hash = Self.hash(presented) else { return nil }
        guard try await store.deviceTokenEmail(hash: hash, issuedAfter: now().addingTimeInterval(-Self.lifetime)) == email else { return nil }
        return Device(key: Hex.encode(hash))
    }

    /// Remembers that the device holding `token` (for `email`) passed the second step, for `seconds`. A token
    /// ends with every credential change (`endAll`), so the remembering never outlives a password change or reset.
    package func rememberSecondFactor(_ token: String, for email: String, seconds: Double) async throws {
        _ = try await store.rememberSecondFactor(hash: SessionToken.hash(token), email: email, until: now().addingTimeInterval(seconds))
    }

    /// Whether the device `presented` names passed the second step for `email` recently enough to skip it.
    package func remembersSecondFactor(_ presented: String?, for email: String) async throws -> Bool {
        guard let hash = Self.hash(presented) else { return false }
        let until = try await store.deviceSecondFactorUntil(hash: hash, email: email, issuedAfter: now().addingTimeInterval(-Self.lifetime))
        return until.map { now() < $0 } ?? false
    }

    /// What the store keeps of a presented token; nil for none, or one no token could be (empty, over 128 bytes).
    private static func hash(_ presented: String?) -> [UInt8]? {
        guard let presented, !presented.isEmpty, presented.utf8.count <= 128 else { return nil }
        return SessionToken.hash(presented)
    }

    /// Ends every device token of `userID`'s verified addresses.
    public func endAll(of userID: UUID) async throws {
        try await store.deleteDeviceTokens(userID: userID)
    }

    public struct Device: Sendable, Equatable {
        /// Names the device's counters; the hash, never the secret.
        public let key: String
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(store: any DeviceTokenRepository, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }
}
