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

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn §5.4 in its JSON form): what an app or page passes
/// to `navigator.credentials.create()` (after `PublicKeyCredential.parseCreationOptionsFromJSON`) or to
/// `ASAuthorizationPlatformPublicKeyCredentialProvider.createCredentialRegistrationRequest`.
public struct PasskeyCreationOptions: Codable, Sendable, Equatable {
    public struct RelyingParty: Codable, Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public struct User: Codable, Sendable, Equatable {
        /// The account's random user handle, base64url: never the email.
        public var id: String
        public var name: String
        public var displayName: String

        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    public struct Parameter: Codable, Sendable, Equatable {
        public var type: String
        /// A COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, …).
        public var alg: Int

        public init(type: String = "public-key", alg: Int) {
            self.type = type
            self.alg = alg
        }
    }

    public struct Selection: Codable, Sendable, Equatable {
        public var residentKey: String
        public var requireResidentKey: Bool
        public var userVerification: String

        public init(residentKey: String, requireResidentKey: Bool, userVerification: String) {
            self.residentKey = residentKey
            self.requireResidentKey = requireResidentKey
            self.userVerification = userVerification
        }
    }

    public var rp: RelyingParty
    public var user: User
    /// base64url; single use, valid for `timeout` milliseconds.
    public var challenge: String
    public var pubKeyCredParams: [Parameter]
    public var timeout: Int
    /// The account's passkeys, so an authenticator does not make a second one.
    public var excludeCredentials: [PasskeyDescriptor]
    public var authenticatorSelection: Selection
    public var attestation: String
    public var hints: [String]?

    public init(
        rp: RelyingParty, user: User, challenge: String, pubKeyCredParams: [Parameter], timeout: Int, excludeCredentials: [PasskeyDescriptor],
        authenticatorSelection: Selection, attestation: String, hints: [String]? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.attestation = attestation
        self.hints = hints
    }
}

/// `PublicKeyCredentialRequestOptionsJSON` (§5.5): what `navigator.credentials.get()` takes. chatterd
/// sends no `allowCredentials`: passkeys are discoverable, so no username is needed first.
public struct PasskeyRequestOptions: Codable, Sendable, Equatable {
    public var challenge: String
    public var timeout: Int
    public var rpId: String
    public var allowCredentials: [PasskeyDescriptor]
    public var userVerification: String

    public init(challenge: String, timeout: Int, rpId: String, allowCredentials: [PasskeyDescriptor] = [], userVerification: String) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
    }
}

/// `PublicKeyCredentialDescriptorJSON`.
public struct PasskeyDescriptor: Codable, Sendable, Equatable {
    public var type: String
    /// The credential ID, base64url.
    public var id: String
    public var transports: [String]?

    public init(type: String = "public-key", id: String, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// `POST /v1/auth/passkey/signup/options`: the address and the code emailed to it, which this redeems.
public struct PasskeySignUpOptionsRequest: Codable, Sendable, Equatable {
    public var email: String
    public var code: String

    public init(email: String, code: String) {
        self.email = email
        self.code = code
    }
}

/// The end of a registration (adding a passkey or signing up with one).
public struct PasskeyRegistrationRequest: Codable, Sendable, Equatable {
    public var credential: RegistrationResponseJSON
    /// A name for the passkey in the account's list; chatterd names it after the authenticator when absent.
    public var name: String?

    public init(credential: RegistrationResponseJSON, name: String? = nil) {
        self.credential = credential
        self.name = name
    }
}

/// The end of a passkey sign-in.
public struct PasskeySignInRequest: Codable, Sendable, Equatable {
    public var credential: AuthenticationResponseJSON

    public init(credential: AuthenticationResponseJSON) {
        self.credential = credential
    }
}

/// `PATCH /v1/passkeys/{id}`.
public struct PasskeyRenameRequest: Codable, Sendable, Equatable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

/// One of the account's passkeys, as the account page and `GET /v1/passkeys` list them.
public struct PasskeyInfo: Codable, Sendable, Equatable {
    /// The credential ID, base64url: the `{id}` of `PATCH` and `DELETE /v1/passkeys/{id}`.
    public var id: String
    public var name: String
    /// The authenticator's name when its AAGUID is known ("iCloud Keychain", "Google Password Manager", …).
    public var authenticator: String?
    /// Backed up (synced), so another of the user's devices can use it.
    public var synced: Bool
    public var createdAt: Double
    public var lastUsedAt: Double?
    /// Its counter once went backwards: the passkey may have been copied, and signs in no more.
    public var flagged: Bool

    public init(id: String, name: String, authenticator: String?, synced: Bool, createdAt: Double, lastUsedAt: Double?, flagged: Bool) {
        self.id = id
        self.name = name
        self.authenticator = authenticator
        self.synced = synced
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.flagged = flagged
    }
}
