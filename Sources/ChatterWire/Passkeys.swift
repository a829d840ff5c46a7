// Passkeys (WebAuthn) on the wire: the JSON forms the WebAuthn Level 3 specification gives for a
// credential (`PublicKeyCredential.toJSON()`, §5.1) and for the options a relying party sends
// (`PublicKeyCredentialCreationOptionsJSON`, `PublicKeyCredentialRequestOptionsJSON`, §5.1.8–9). Binary
// values are base64url strings without padding, as in the specification.

/// What a browser or app sends after `navigator.credentials.create()`: a new credential and its attestation.
public struct RegistrationResponseJSON: Codable, Sendable, Equatable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AttestationResponse
    public var authenticatorAttachment: String?

    public struct AttestationResponse: Codable, Sendable, Equatable {
        public var clientDataJSON: String
        public var attestationObject: String
        /// How the authenticator can be reached (`internal`, `hybrid`, `usb`, …); kept to hint later sign-ins.
        public var transports: [String]?

        public init(clientDataJSON: String, attestationObject: String, transports: [String]? = nil) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
        }
    }

    public init(id: String, rawId: String, type: String = "public-key", response: AttestationResponse, authenticatorAttachment: String? = nil) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
    }
}

/// What a browser or app sends after `navigator.credentials.get()`: an assertion by an existing credential.
public struct AuthenticationResponseJSON: Codable, Sendable, Equatable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AssertionResponse
    public var authenticatorAttachment: String?

    public struct AssertionResponse: Codable, Sendable, Equatable {
        public var clientDataJSON: String
        public var authenticatorData: String
        public var signature: String
        /// The user handle stored with a discoverable credential: how the server finds the account when no
        /// username was given.
        public var userHandle: String?

        public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String? = nil) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    public init(id: String, rawId: String, type: String = "public-key", response: AssertionResponse, authenticatorAttachment: String? = nil) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
    }
}
