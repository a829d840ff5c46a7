import Foundation

/// Device tokens, as OWASP's "device cookies" describe: a device that signed in to an address once gets a
/// secret that later proves it is that device. Its password attempts and code requests then draw on an
/// allowance of its own, so failures from anywhere else — an attacker guessing, a stranger asking for
/// codes — never lock the owner's device out.
public struct DeviceTokens: Sendable {
    let store: any DeviceTokenRepository
    let now: @Sendable () -> Date

    /// A new token for `email`; only its hash is kept.
    public func issue(for email: String) async throws -> String {
        let token = SessionToken.generate()
        try await store.storeDeviceToken(hash: token.hash, email: email, at: now())
        return token.secret
    }

    /// The device `presented` names, when it was issued for `email`: the key of its own allowance.
    public func device(_ presented: String?, for email: String) async throws -> Device? {
        guard let presented, !presented.isEmpty, presented.utf8.count <= 128 else { return nil }
        let hash = SessionToken.hash(presented)
        guard try await store.deviceTokenEmail(hash: hash) == email else { return nil }
        return Device(key: hash.map { String(format: "%02x", $0) }.joined())
    }

    public struct Device: Sendable, Equatable {
        /// Names the device's counters; the hash, never the secret.
        public let key: String
    }
}
