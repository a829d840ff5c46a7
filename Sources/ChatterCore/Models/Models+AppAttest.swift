import Foundation

/// An app install's App Attest key, kept once its attestation verified: the key ID the app names it by, its
/// public key (the X9.63 point), the highest counter an assertion of it has shown, and the app and environment
/// its attestation named.
public struct AppAttestKeyRecord: Sendable, Equatable {
    public var keyID: [UInt8]
    public var appID: String
    public var publicKey: [UInt8]
    public var counter: UInt32
    /// `development` or `production`, as the attestation's AAGUID named it.
    public var environment: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        keyID: [UInt8], appID: String, publicKey: [UInt8], counter: UInt32 = 0, environment: String, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.keyID = keyID
        self.appID = appID
        self.publicKey = publicKey
        self.counter = counter
        self.environment = environment
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// The attested install a request spoke for: an assertion by its App Attest key, over a fresh challenge and the
/// request's DPoP key, verified at the edge. A session it starts records it, and the operator may require one to
/// create an account.
public struct AttestedInstall: Sendable, Hashable {
    public var keyID: [UInt8]
    /// The app its attestation named (`TEAMID.bundle.id`).
    public var appID: String

    public init(keyID: [UInt8], appID: String) {
        self.keyID = keyID
        self.appID = appID
    }
}
