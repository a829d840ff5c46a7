import Foundation

/// chatterd's creation options as a platform authenticator takes them: bytes rather than base64url, the
/// fields `ASAuthorizationPlatformPublicKeyCredentialProvider.createCredentialRegistrationRequest` asks
/// for. Made here, where Linux tests reach it, so the Apple-only shell only copies fields.
public struct PasskeyRegistrationParts: Sendable, Equatable {
    /// The relying party ID: the domain the app's Associated Domains must list (`webcredentials:`).
    public var relyingPartyID: String
    /// The challenge to sign, as bytes.
    public var challenge: Data
    /// The account's user handle (random, never the email).
    public var userID: Data
    /// What the system sheet names the passkey by (the email for a sign-up).
    public var userName: String
    /// The account's name, for providers that show one beside `userName`.
    public var displayName: String
    /// The account's passkeys: a device that holds one must not make a second.
    public var excludedCredentialIDs: [Data]
    /// `required`, `preferred` or `discouraged`, as the platform's preference's raw value.
    public var userVerification: String

    /// The parts of `options`; throws `PasskeyOptionsError` when a binary field is not base64url.
    public init(_ options: PasskeyCreationOptions) throws {
        relyingPartyID = options.rp.id
        challenge = try PasskeyOptionsError.bytes(options.challenge, "challenge")
        userID = try PasskeyOptionsError.bytes(options.user.id, "user.id")
        userName = options.user.name
        displayName = options.user.displayName
        excludedCredentialIDs = try options.excludeCredentials.map { try PasskeyOptionsError.bytes($0.id, "excludeCredentials") }
        userVerification = options.authenticatorSelection.userVerification
    }
}

/// chatterd's request options as a platform authenticator takes them
/// (`createCredentialAssertionRequest(challenge:)`, `allowedCredentials`).
public struct PasskeyAssertionParts: Sendable, Equatable {
    /// The relying party ID: the domain the app's Associated Domains must list.
    public var relyingPartyID: String
    /// The challenge to sign, as bytes.
    public var challenge: Data
    /// Empty for a sign-in: the passkey names the account (discoverable credentials).
    public var allowedCredentialIDs: [Data]
    /// `required`, `preferred` or `discouraged`, as the platform's preference's raw value.
    public var userVerification: String

    /// The parts of `options`; throws `PasskeyOptionsError` when a binary field is not base64url.
    public init(_ options: PasskeyRequestOptions) throws {
        relyingPartyID = options.rpId
        challenge = try PasskeyOptionsError.bytes(options.challenge, "challenge")
        allowedCredentialIDs = try options.allowCredentials.map { try PasskeyOptionsError.bytes($0.id, "allowCredentials") }
        userVerification = options.userVerification
    }
}

/// Options whose binary field is not base64url: a server that is not chatterd, or a proxy that changed them.
public struct PasskeyOptionsError: LocalizedError, Equatable, CustomStringConvertible {
    /// The field that did not decode.
    public var field: String

    /// The sentence a banner shows.
    public var description: String { "The server's passkey options are not valid (\(field)). Try again later." }
    /// The same sentence, for `localizedDescription` (a banner shows it, not "error 1").
    public var errorDescription: String? { description }

    static func bytes(_ text: String, _ field: String) throws -> Data {
        guard let bytes = Data(base64URL: text) else { throw PasskeyOptionsError(field: field) }
        return bytes
    }
}

extension RegistrationResponseJSON {
    /// The JSON a browser's `toJSON()` gives, from what a platform credential carries as bytes
    /// (`ASAuthorizationPlatformPublicKeyCredentialRegistration`).
    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data, attachment: String? = "platform", transports: [String]? = nil) {
        let id = credentialID.base64URL
        self.init(
            id: id, rawId: id,
            response: AttestationResponse(clientDataJSON: clientDataJSON.base64URL, attestationObject: attestationObject.base64URL, transports: transports),
            authenticatorAttachment: attachment)
    }
}

extension AuthenticationResponseJSON {
    /// The JSON a browser's `toJSON()` gives, from what a platform assertion carries as bytes
    /// (`ASAuthorizationPlatformPublicKeyCredentialAssertion`).
    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?, attachment: String? = "platform") {
        let id = credentialID.base64URL
        self.init(
            id: id, rawId: id,
            response: AssertionResponse(
                clientDataJSON: clientDataJSON.base64URL, authenticatorData: authenticatorData.base64URL, signature: signature.base64URL,
                userHandle: userHandle.map(\.base64URL)),
            authenticatorAttachment: attachment)
    }
}

extension Data {
    /// base64url without padding (RFC 4648 §5), as WebAuthn's JSON forms write bytes; nil for anything
    /// else (padding, the standard alphabet's `+` and `/`, whitespace).
    init?(base64URL text: String) {
        guard text.utf8.allSatisfy({ Self.urlAlphabet.contains($0) }), text.utf8.count % 4 != 1 else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        self.init(base64Encoded: standard)
    }

    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static let urlAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}

/// The device already holds one of the account's passkeys (the options' `excludeCredentials` matched): adding
/// another here would make a second for the same place. Apple's `ASAuthorizationError.matchedExcludedCredential`.
public struct PasskeyAlreadyOnDevice: LocalizedError, Equatable {
    /// The error, for an authenticator that found the device excluded.
    public init() {}
    /// The sentence a banner shows.
    public var errorDescription: String? { "This device already has a passkey for your account: sign in with it, or add one on another device." }
}
