// Passkeys (WebAuthn) on the wire: the JSON forms the WebAuthn Level 3 specification gives for a
// credential (`PublicKeyCredential.toJSON()`, §5.1) and for the options a relying party sends
// (`PublicKeyCredentialCreationOptionsJSON`, `PublicKeyCredentialRequestOptionsJSON`, §5.1.8–9). Binary
// values are base64url strings without padding, as in the specification.

/// What a browser or app sends after `navigator.credentials.create()`: a new credential and its attestation.
public struct RegistrationResponseJSON: Codable, Sendable, Equatable {
    /// The credential ID, base64url (the same as `rawId`).
    public var id: String
    /// The credential ID, base64url.
    public var rawId: String
    /// Always `public-key`.
    public var type: String
    /// The authenticator's answer.
    public var response: AttestationResponse
    /// `platform` (this device) or `cross-platform` (a security key, another phone), when the client says.
    public var authenticatorAttachment: String?

    /// `AuthenticatorAttestationResponseJSON`: what the authenticator made.
    public struct AttestationResponse: Codable, Sendable, Equatable {
        /// The client data the authenticator signed over, base64url.
        public var clientDataJSON: String
        /// The CBOR attestation object (format, statement, authenticator data), base64url.
        public var attestationObject: String
        /// How the authenticator can be reached (`internal`, `hybrid`, `usb`, …); kept to hint later sign-ins.
        public var transports: [String]?

        /// An attestation response from its parts.
        public init(clientDataJSON: String, attestationObject: String, transports: [String]? = nil) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
        }
    }

    /// A registration response from its parts.
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
    /// The credential ID, base64url (the same as `rawId`).
    public var id: String
    /// The credential ID, base64url.
    public var rawId: String
    /// Always `public-key`.
    public var type: String
    /// The authenticator's answer.
    public var response: AssertionResponse
    /// `platform` or `cross-platform`, when the client says.
    public var authenticatorAttachment: String?

    /// `AuthenticatorAssertionResponseJSON`: what the authenticator signed.
    public struct AssertionResponse: Codable, Sendable, Equatable {
        /// The client data, base64url.
        public var clientDataJSON: String
        /// The authenticator data (RP ID hash, flags, counter), base64url.
        public var authenticatorData: String
        /// The signature over the authenticator data and the client data's hash, base64url.
        public var signature: String
        /// The user handle stored with a discoverable credential: how the server finds the account when no
        /// username was given.
        public var userHandle: String?

        /// An assertion response from its parts.
        public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String? = nil) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// An authentication response from its parts.
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
    /// Who the passkey is for.
    public struct RelyingParty: Codable, Sendable, Equatable {
        /// The RP ID: the domain the passkey is bound to.
        public var id: String
        /// The name authenticators show.
        public var name: String

        /// A relying party from its ID and name.
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The account the passkey signs in to.
    public struct User: Codable, Sendable, Equatable {
        /// The account's random user handle, base64url: never the email.
        public var id: String
        /// The account's name as the passkey list shows it (the email for a sign-up).
        public var name: String
        /// The account's display name.
        public var displayName: String

        /// A user from its handle and names.
        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    /// An algorithm the server accepts for the new key.
    public struct Parameter: Codable, Sendable, Equatable {
        /// Always `public-key`.
        public var type: String
        /// A COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, …).
        public var alg: Int

        /// A parameter for the COSE algorithm `alg`.
        public init(type: String = "public-key", alg: Int) {
            self.type = type
            self.alg = alg
        }
    }

    /// What kind of authenticator and credential the server asks for.
    public struct Selection: Codable, Sendable, Equatable {
        /// `required`: a discoverable credential, so signing in needs no username.
        public var residentKey: String
        /// `true`, for clients that predate `residentKey`.
        public var requireResidentKey: Bool
        /// `required`: Face ID, Touch ID or a PIN, not a touch alone.
        public var userVerification: String

        /// A selection from its parts.
        public init(residentKey: String, requireResidentKey: Bool, userVerification: String) {
            self.residentKey = residentKey
            self.requireResidentKey = requireResidentKey
            self.userVerification = userVerification
        }
    }

    /// The relying party.
    public var rp: RelyingParty
    /// The account.
    public var user: User
    /// base64url; single use, valid for `timeout` milliseconds.
    public var challenge: String
    /// The algorithms the server accepts, in its order of preference.
    public var pubKeyCredParams: [Parameter]
    /// Milliseconds the challenge stays redeemable.
    public var timeout: Int
    /// The account's passkeys, so an authenticator does not make a second one.
    public var excludeCredentials: [PasskeyDescriptor]
    /// The kind of credential asked for.
    public var authenticatorSelection: Selection
    /// `none` (the default) or `direct`, when the server requires trusted attestation.
    public var attestation: String
    /// Hints for the client's interface (`client-device`, `hybrid`, `security-key`); none by default.
    public var hints: [String]?

    /// Creation options from their parts.
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
    /// base64url; single use, valid for `timeout` milliseconds.
    public var challenge: String
    /// Milliseconds the challenge stays redeemable.
    public var timeout: Int
    /// The RP ID the passkey must be bound to.
    public var rpId: String
    /// Empty: any of the user's passkeys for this RP ID will do.
    public var allowCredentials: [PasskeyDescriptor]
    /// `required`: Face ID, Touch ID or a PIN.
    public var userVerification: String

    /// Request options from their parts.
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
    /// Always `public-key`.
    public var type: String
    /// The credential ID, base64url.
    public var id: String
    /// How the authenticator can be reached, as it said at registration.
    public var transports: [String]?

    /// A descriptor of the credential `id`.
    public init(type: String = "public-key", id: String, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// `POST /v1/auth/passkey/signup/options`: the address and the code emailed to it, which this redeems.
public struct PasskeySignUpOptionsRequest: Codable, Sendable, Equatable {
    /// The address the code was sent to.
    public var email: String
    /// The 6-digit code.
    public var code: String

    /// A request for `email` proved by `code`.
    public init(email: String, code: String) {
        self.email = email
        self.code = code
    }
}

/// The end of a registration (adding a passkey or signing up with one).
public struct PasskeyRegistrationRequest: Codable, Sendable, Equatable {
    /// What the authenticator made, as `PublicKeyCredential.toJSON()` gives it.
    public var credential: RegistrationResponseJSON
    /// A name for the passkey in the account's list; chatterd names it after the authenticator when absent.
    public var name: String?

    /// A registration of `credential`, named `name`.
    public init(credential: RegistrationResponseJSON, name: String? = nil) {
        self.credential = credential
        self.name = name
    }
}

/// The end of a passkey sign-in.
public struct PasskeySignInRequest: Codable, Sendable, Equatable {
    /// What the authenticator signed, as `PublicKeyCredential.toJSON()` gives it.
    public var credential: AuthenticationResponseJSON

    /// A sign-in with `credential`.
    public init(credential: AuthenticationResponseJSON) {
        self.credential = credential
    }
}

/// `PATCH /v1/passkeys/{id}`.
public struct PasskeyRenameRequest: Codable, Sendable, Equatable {
    /// The new name, 1 to 64 characters.
    public var name: String

    /// A rename to `name`.
    public init(name: String) {
        self.name = name
    }
}

/// One of the account's passkeys, as the account page and `GET /v1/passkeys` list them.
public struct PasskeyInfo: Codable, Sendable, Equatable {
    /// The credential ID, base64url: the `{id}` of `PATCH` and `DELETE /v1/passkeys/{id}`.
    public var id: String
    /// The name the user gave it, or its provider's.
    public var name: String
    /// The authenticator's name when its AAGUID is known ("iCloud Keychain", "Google Password Manager", …).
    public var authenticator: String?
    /// Backed up (synced), so another of the user's devices can use it.
    public var synced: Bool
    /// When it was added (UNIX time).
    public var createdAt: Double
    /// When it last signed in (UNIX time); nil if never.
    public var lastUsedAt: Double?
    /// Its counter once went backwards: the passkey may have been copied, and signs in no more.
    public var flagged: Bool

    /// A passkey's entry from its parts.
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
