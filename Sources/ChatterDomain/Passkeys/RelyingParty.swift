import ChatterCore
import Foundation
import X509

/// Who chatterd is to authenticators: the RP ID (a registrable domain the origins share), the origins a
/// ceremony may come from, and the certificates attestation chains are checked against.
public struct RelyingParty: Sendable {
    /// The RP ID, e.g. `example.org`; its SHA-256 is what authenticator data must carry.
    public var id: String
    /// Shown by authenticators when a passkey is made.
    public var name: String
    /// Allowed `origin` values, compared exactly: the web origin (`https://example.org`), and for native apps
    /// `https://RP_ID` (iOS) or `android:apk-key-hash:…` (Android).
    public var origins: [String]
    /// Whether a ceremony may run in a cross-origin iframe (`crossOrigin: true`); chatterd's pages never
    /// embed one, so off by default.
    public var allowsCrossOrigin: Bool
    /// Roots an attestation chain may end in, besides the built-in Apple WebAuthn root.
    public var trustAnchors: [Certificate]
    /// Whether a registration whose attestation chain ends in none of the anchors is refused; when false
    /// (the default, as synced passkeys send no attestation) it is kept and recorded as not verified.
    public var requiresTrustedAttestation: Bool

    public init(
        id: String, name: String? = nil, origins: [String], allowsCrossOrigin: Bool = false, trustAnchors: [Certificate] = [],
        requiresTrustedAttestation: Bool = false
    ) {
        self.id = id
        self.name = name ?? id
        self.origins = origins
        self.allowsCrossOrigin = allowsCrossOrigin
        self.trustAnchors = trustAnchors
        self.requiresTrustedAttestation = requiresTrustedAttestation
    }
}
