// App Attest (DCAppAttestService): an app install proves to chatterd that it is the genuine app on a genuine
// Apple device by attesting a key over a one-time challenge.

/// `POST /v1/auth/app-attest/challenge`'s answer.
public struct AppAttestChallengeResponse: Codable, Sendable, Equatable {
    /// A one-time challenge, base64url, good for `expiresIn` seconds. The client data an attestation covers is this
    /// text's UTF-8 bytes: pass their SHA-256 as `attestKey(_:clientDataHash:)`'s `clientDataHash`.
    public var challenge: String
    /// Seconds until the challenge expires.
    public var expiresIn: Int

    /// A challenge good for `expiresIn` seconds.
    public init(challenge: String, expiresIn: Int) {
        self.challenge = challenge
        self.expiresIn = expiresIn
    }
}

/// `POST /v1/auth/app-attest/keys`: an install's key and Apple's attestation of it.
public struct AppAttestKeyRequest: Codable, Sendable, Equatable {
    /// The key's identifier as `DCAppAttestService.generateKey()` returned it (base64 of SHA-256 of the public key;
    /// standard or url-safe).
    public var keyId: String
    /// `attestKey(_:clientDataHash:)`'s attestation object, base64 (standard or url-safe).
    public var attestation: String
    /// The challenge the attestation covers, as `AppAttestChallengeResponse` gave it.
    public var challenge: String

    /// An attestation of `keyId` over `challenge`.
    public init(keyId: String, attestation: String, challenge: String) {
        self.keyId = keyId
        self.attestation = attestation
        self.challenge = challenge
    }
}

/// The attested key, as chatterd kept it.
public struct AppAttestKeyResponse: Codable, Sendable, Equatable {
    /// The key's identifier, base64url.
    public var keyId: String
    /// The app the attestation named, `TEAMID.bundle.id`.
    public var appId: String
    /// `development` or `production`, as the attestation named it.
    public var environment: String

    /// A kept key.
    public init(keyId: String, appId: String, environment: String) {
        self.keyId = keyId
        self.appId = appId
        self.environment = environment
    }
}

/// How an attested install vouches for a sign-in: a header on the request that starts the session.
public enum AppAttestAssertion {
    /// The header's name. Its value is `<key ID>.<challenge>.<assertion>`, each base64url: the attested key's ID, a
    /// fresh challenge (`POST /v1/auth/app-attest/challenge`), and the key's assertion over the client data
    /// `clientData(challenge:thumbprint:)`.
    public static let header = "App-Attest-Assertion"

    /// What the assertion signs: the challenge and the JWK thumbprint (RFC 7638) of the DPoP key the request proves
    /// it holds, so it vouches for that key alone; without a proof, the challenge and an empty thumbprint.
    public static func clientData(challenge: String, thumbprint: String?) -> String {
        "\(challenge).\(thumbprint ?? "")"
    }

    /// The routes that read the header (POST only): those that start a session or create an account (a passkey
    /// sign-up creates it with its options, once the emailed code proved the address). Elsewhere it is ignored.
    public static let routes: Set<String> = [
        NativePath.google, NativePath.apple, NativePath.emailVerify, NativePath.passwordSignUp, NativePath.passwordSignIn,
        NativePath.passwordReset, NativePath.passkeySignUpOptions, NativePath.passkeySignUp, NativePath.passkeySignIn, NativePath.secondStep,
    ]
}
