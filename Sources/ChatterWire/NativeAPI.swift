// The native, versioned JSON API (under /v1). Both chatterd and ChatterKit use these types, so the two
// sides cannot drift apart. Times are seconds: `expiresIn` counts from the response; `*At` are UNIX times.

/// Route paths of the native API.
public enum NativePath {
    /// `POST`, no body: a one-time challenge (`AppAttestChallengeResponse`) for an App Attest attestation; 404 when the
    /// server accepts no app's attestations.
    public static let appAttestChallenge = "/v1/auth/app-attest/challenge"
    /// `POST` an `AppAttestKeyRequest`: an install's App Attest key, attested over a challenge; answers 201 with an
    /// `AppAttestKeyResponse`.
    public static let appAttestKeys = "/v1/auth/app-attest/keys"
    /// `GET`, no sign-in needed: the server's `PasswordPolicy`.
    public static let passwordPolicy = "/v1/auth/password-policy"
    /// `POST` a `GoogleSignInRequest`; answers a `SessionResponse`.
    public static let google = "/v1/auth/google"
    /// `POST` an `AppleSignInRequest`; answers a `SessionResponse`.
    public static let apple = "/v1/auth/apple"
    /// `POST` an `EmailCodeRequest`: emails a 6-digit code; answers an `EmailCodeResponse`, or 429 when asked again
    /// too soon.
    public static let emailCode = "/v1/auth/email/code"
    /// `POST` an `EmailVerifyRequest`: signs in with the emailed code, creating the account on first use; answers a
    /// `SessionResponse`.
    public static let emailVerify = "/v1/auth/email/verify"
    /// `POST` a `PasswordSignUpRequest`: creates a password account; answers a `SessionResponse`.
    public static let passwordSignUp = "/v1/auth/password/signup"
    /// `POST` a `PasswordSignInRequest`; answers a `SessionResponse`, or 429 after too many failures.
    public static let passwordSignIn = "/v1/auth/password/signin"
    /// `POST` a `PasswordResetRequest`; answers a `SessionResponse`.
    public static let passwordReset = "/v1/auth/password/reset"
    /// `POST` a `PasswordChangeRequest` with the access token; answers 204.
    public static let passwordChange = "/v1/auth/password/change"
    /// `POST` a `RefreshRequest`: rotates the refresh token; answers a `SessionResponse`.
    public static let refresh = "/v1/auth/refresh"
    /// `POST` a `SignOutRequest` with the access token: ends this session, or every session of the user; answers
    /// 204.
    public static let signOut = "/v1/auth/signout"
    /// `POST` with the access token: answers a `WebSessionResponse`, a one-time link that signs a web view in.
    public static let webSession = "/v1/auth/web-session"
    /// `GET` with the access token: the `UserProfile`. `DELETE` deletes the account with every session and chatt.
    public static let me = "/v1/me"
    /// `GET` with the access token: the user's sessions, as `[SessionInfo]`. `DELETE` on `/v1/sessions/<id>` ends
    /// one.
    public static let sessions = "/v1/sessions"
    /// `GET` with the access token: the changes to how the account signs in, newest first, as `[AccountEvent]`.
    public static let accountHistory = "/v1/account/history"
    /// `GET`, no sign-in needed: a `ChattPage`, with `?before=<id>` and `?limit=` (1 to 200, default 50). `POST` a
    /// `NewChattRequest` with the access token to post.
    public static let chatts = "/v1/chatts"
    /// Where Apple posts Sign in with Apple's server-to-server notifications (consent revoked, account deleted);
    /// not for apps.
    public static let appleNotifications = "/v1/apple/notifications"
    /// `POST` with the access token: answers `PasskeyCreationOptions` for adding a passkey to the account.
    public static let passkeyRegisterOptions = "/v1/auth/passkey/register/options"
    /// `POST` a `PasskeyRegistrationRequest` with the access token: adds the passkey; answers `PasskeyInfo` (201).
    public static let passkeyRegister = "/v1/auth/passkey/register"
    /// `POST` a `PasskeySignUpOptionsRequest` (an address and its emailed code): answers `PasskeyCreationOptions`
    /// for the address's account, created on first use.
    public static let passkeySignUpOptions = "/v1/auth/passkey/signup/options"
    /// `POST` a `PasskeyRegistrationRequest` made from sign-up options: adds the passkey; answers a `SessionResponse`.
    public static let passkeySignUp = "/v1/auth/passkey/signup"
    /// `POST`, no sign-in needed: answers `PasskeyRequestOptions` for a passkey sign-in.
    public static let passkeySignInOptions = "/v1/auth/passkey/signin/options"
    /// `POST` a `PasskeySignInRequest`; answers a `SessionResponse`.
    public static let passkeySignIn = "/v1/auth/passkey/signin"
    /// `POST` with the access token: answers `PasskeyRequestOptions` naming the account's passkeys, for confirming
    /// it is you with one (`passkeyStepUp`).
    public static let passkeyStepUpOptions = "/v1/auth/passkey/step-up/options"
    /// `POST` a `PasskeySignInRequest` made from step-up options with the access token: for ten minutes this
    /// session may do what answers `step_up_required` or `sign_in_again` otherwise; answers 204.
    public static let passkeyStepUp = "/v1/auth/passkey/step-up"
    /// `GET` with the access token: the account's passkeys as `[PasskeyInfo]`. `PATCH` a `PasskeyRenameRequest` or
    /// `DELETE` on `/v1/passkeys/<id>` renames or removes one (never the account's last way to sign in).
    public static let passkeys = "/v1/passkeys"
    /// `GET` with the access token: the account's `SecondFactorStatus`.
    public static let secondFactor = "/v1/auth/mfa"
    /// `POST` with the access token: starts adding an authenticator app; answers a `TOTPEnrolment` (its secret and
    /// `otpauth://` URI), which `secondFactorConfirm` completes.
    public static let secondFactorEnrol = "/v1/auth/mfa/totp"
    /// `POST` a `SecondFactorCodeRequest` (the app's first code) with the access token: turns the second factor on;
    /// answers `RecoveryCodes`, shown once.
    public static let secondFactorConfirm = "/v1/auth/mfa/totp/confirm"
    /// `POST` a `SecondFactorCodeRequest` with the access token: a new set of recovery codes, ending the old set;
    /// answers `RecoveryCodes`.
    public static let recoveryCodes = "/v1/auth/mfa/recovery-codes"
    /// `POST` a `SecondFactorCodeRequest` with the access token: turns the second factor off; answers 204.
    public static let secondFactorDisable = "/v1/auth/mfa/disable"
    /// `POST` a `SecondFactorCodeRequest` with the access token: proves the second factor for this session, so
    /// that for ten minutes it may do what answers `step_up_required` otherwise; answers 204.
    public static let stepUp = "/v1/auth/mfa/step-up"
    /// `POST` a `SecondStepRequest`: completes a sign-in that answered `second_factor_required`; answers a
    /// `SessionResponse`.
    public static let secondStep = "/v1/auth/mfa/verify"
    /// `GET`: the OpenAPI document that describes this API.
    public static let openAPI = "/openapi.json"
}

/// Every successful sign-in and every refresh answers with this.
public struct SessionResponse: Codable, Sendable, Equatable {
    /// Opaque bearer token for `Authorization: Bearer …`; short-lived.
    public var accessToken: String
    /// Opaque, single-use: every refresh returns a new one and retires this one.
    public var refreshToken: String
    /// Always `Bearer`.
    public var tokenType: String
    /// Seconds until `accessToken` expires.
    public var expiresIn: Int
    /// Seconds until the session's absolute end; refreshing never extends past it.
    public var refreshExpiresIn: Int
    /// This session's id, as `SessionInfo.id` lists it: lets an app mark or revoke it.
    public var sessionID: String
    /// The signed-in account, as `GET /v1/me` would answer.
    public var user: UserProfile
    /// After a sign-in with an email address (code or password): proves this device signed in to that
    /// address before. Keep it (it is not a session) and send it with later password sign-ins and code
    /// requests for the address: the device then has its own allowance, which no one else's failures use up.
    public var deviceToken: String?

    /// An answer as chatterd sends it; apps receive it through `ChatterClient`, which keeps the tokens in secure
    /// storage.
    public init(
        accessToken: String, refreshToken: String, tokenType: String = "Bearer", expiresIn: Int, refreshExpiresIn: Int,
        sessionID: String, user: UserProfile, deviceToken: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshExpiresIn = refreshExpiresIn
        self.sessionID = sessionID
        self.user = user
    }
}

/// Name parts as Sign in with Apple hands them over (`PersonNameComponents`' fields).
public struct NameParts: Codable, Sendable, Equatable {
    /// Given (first) name. With `familyName` it makes the display name of an account Apple creates.
    public var givenName: String?
    /// Family (last) name. With `givenName` it makes the display name of an account Apple creates.
    public var familyName: String?
    /// Middle name; kept with the account, but not part of the display name.
    public var middleName: String?
    /// Nickname; kept with the account, but not part of the display name.
    public var nickname: String?
    /// A prefix such as "Dr."; kept with the account, but not part of the display name.
    public var namePrefix: String?
    /// A suffix such as "Jr."; kept with the account, but not part of the display name.
    public var nameSuffix: String?

    /// Name parts, each nil when Apple did not share it. chatterd refuses a part longer than
    /// `Limits.nameCharacters` characters.
    public init(
        givenName: String? = nil, familyName: String? = nil, middleName: String? = nil, nickname: String? = nil,
        namePrefix: String? = nil, nameSuffix: String? = nil
    ) {
        self.givenName = givenName
        self.familyName = familyName
        self.middleName = middleName
        self.nickname = nickname
        self.namePrefix = namePrefix
        self.nameSuffix = nameSuffix
    }

    /// Whether every part is nil or empty, as when Apple shared no name.
    public var isEmpty: Bool {
        [givenName, familyName, middleName, nickname, namePrefix, nameSuffix].allSatisfy { ($0 ?? "").isEmpty }
    }
}

/// The signed-in account as chatterd describes it (`GET /v1/me`, and in every `SessionResponse`).
public struct UserProfile: Codable, Sendable, Equatable {
    /// The account's id (a UUID string). `ChattItem.userID` uses it, so an app can mark the user's own chatts.
    public var id: String
    /// The name shown with the user's chatts: from Google or Apple, chosen at sign-up, or else the email address's
    /// local part.
    public var displayName: String
    /// The account's email address, a verified one when there is one; nil when no sign-in method gave an address.
    public var email: String?
    /// Whether `email` is proven: by an emailed code, or by a provider that vouches for it.
    public var emailVerified: Bool
    /// The name parts Sign in with Apple shared, when it did; nil otherwise.
    public var name: NameParts?
    /// Sign-in methods linked to this account: "google", "apple", "email", "password", "passkey".
    public var methods: [String]

    /// A profile as chatterd builds it.
    public init(id: String, displayName: String, email: String?, emailVerified: Bool, name: NameParts?, methods: [String]) {
        self.id = id
        self.displayName = displayName
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.methods = methods
    }
}

/// `POST /v1/auth/google` body: a Google ID token for a native session, which refreshes, unlike `/adduser`'s
/// chatterID.
public struct GoogleSignInRequest: Codable, Sendable, Equatable {
    /// The Google ID token (a JWT) from Google Sign-In.
    public var idToken: String
    /// The OAuth client ID the token was obtained for; it must be one chatterd was started with
    /// (`--google-client-id`).
    public var clientID: String
    /// The raw nonce the app generated, when it asked Google to embed its hash.
    public var nonce: String?

    /// A sign-in with `idToken`, obtained for `clientID`; pass `nonce` when the app asked Google to embed its hash.
    public init(idToken: String, clientID: String, nonce: String? = nil) {
        self.idToken = idToken
        self.clientID = clientID
        self.nonce = nonce
    }
}

/// `POST /v1/auth/apple` body: the identity token from Sign in with Apple, with the details Apple shares only the
/// first time.
public struct AppleSignInRequest: Codable, Sendable, Equatable {
    /// The identity token (a JWT) from Apple's credential, as text.
    public var identityToken: String
    /// The raw nonce; the token carries hex(SHA-256(rawNonce)).
    public var rawNonce: String?
    /// Only present on the first sign-in, when Apple shares them.
    public var name: NameParts?
    /// The address Apple shared on the first sign-in. chatterd takes the account's address from the identity token,
    /// not from here.
    public var email: String?
    /// The credential's authorization code, as text: chatterd exchanges it at Apple for a refresh token, which it
    /// revokes when the account is deleted. Good for one use within five minutes.
    public var authorizationCode: String?
    /// The credential's user identifier; chatterd refuses the sign-in when it is not the identity token's `sub`.
    public var user: String?

    /// A sign-in with Apple's identity token. `AppleSignInFlow` builds it, and keeps `name` and `email` until
    /// chatterd has them.
    public init(
        identityToken: String, rawNonce: String?, name: NameParts? = nil, email: String? = nil, authorizationCode: String? = nil,
        user: String? = nil
    ) {
        self.identityToken = identityToken
        self.rawNonce = rawNonce
        self.name = name
        self.email = email
        self.authorizationCode = authorizationCode
        self.user = user
    }
}

/// `POST /v1/auth/email/code` body: email a sign-in code to an address.
public struct EmailCodeRequest: Codable, Sendable, Equatable {
    /// The address to send the code to. The answer is the same whether or not it has an account.
    public var email: String
    /// The `deviceToken` of an earlier sign-in to this address, if the device has one.
    public var deviceToken: String?
    /// A request for a code to `email`; `ChatterClient.requestEmailCode(email:)` adds the device token it kept for
    /// the address.
    public init(email: String, deviceToken: String? = nil) {
        self.email = email
        self.deviceToken = deviceToken
    }
}

/// The same answer whether or not the address has an account.
public struct EmailCodeResponse: Codable, Sendable, Equatable {
    /// Always `sent`, whether or not a mail went out, so the answer tells nothing about the address.
    public var status: String
    /// Seconds before another code may be requested for this address.
    public var resendAfter: Int
    /// Seconds the code stays valid.
    public var expiresIn: Int

    /// An answer as chatterd sends it.
    public init(status: String = "sent", resendAfter: Int, expiresIn: Int) {
        self.status = status
        self.resendAfter = resendAfter
        self.expiresIn = expiresIn
    }
}

/// `POST /v1/auth/email/verify` body: sign in with an emailed code, creating the account on first use.
public struct EmailVerifyRequest: Codable, Sendable, Equatable {
    /// The address the code was sent to.
    public var email: String
    /// The 6 digits from the mail.
    public var code: String
    /// The `deviceToken` of an earlier sign-in to this address, if the device has one: it is kept rather than
    /// replaced, and a device remembered after the second step skips it.
    public var deviceToken: String?
    /// A sign-in of `email` with `code`.
    public init(email: String, code: String, deviceToken: String? = nil) {
        self.email = email
        self.code = code
        self.deviceToken = deviceToken
    }
}

/// Sign-up proves the address with an emailed code, so it never reveals whether an account exists.
public struct PasswordSignUpRequest: Codable, Sendable, Equatable {
    /// The new account's address; `code` proves the user can read its mail.
    public var email: String
    /// The 6-digit code emailed to `email` (ask for one with `NativePath.emailCode`).
    public var code: String
    /// The new password; it must meet the server's `PasswordPolicy`.
    public var password: String
    /// The name to show, at most `Limits.nameCharacters` characters; nil uses the address's local part.
    public var displayName: String?

    /// A sign-up. On an address that already has a password, it replaces it, as a reset does.
    public init(email: String, code: String, password: String, displayName: String? = nil) {
        self.email = email
        self.code = code
        self.password = password
        self.displayName = displayName
    }
}

/// `POST /v1/auth/password/signin` body. Failed attempts are throttled per address; a wrong password and an unknown
/// address are refused alike.
public struct PasswordSignInRequest: Codable, Sendable, Equatable {
    /// The account's address.
    public var email: String
    /// The password, sent as typed.
    public var password: String
    /// The `deviceToken` of an earlier sign-in to this address, if the device has one.
    public var deviceToken: String?
    /// A sign-in of `email` with `password`; `ChatterClient.signIn(email:password:)` adds the device token it kept
    /// for the address.
    public init(email: String, password: String, deviceToken: String? = nil) {
        self.email = email
        self.password = password
        self.deviceToken = deviceToken
    }
}

/// "Forgot password": an emailed code and the new password. Revokes every session of the account.
public struct PasswordResetRequest: Codable, Sendable, Equatable {
    /// The account's address.
    public var email: String
    /// The 6-digit code emailed to `email` (ask for one with `NativePath.emailCode`).
    public var code: String
    /// The new password; it must meet the server's `PasswordPolicy`.
    public var newPassword: String
    /// A reset of the password of `email`, proven by `code`.
    public init(email: String, code: String, newPassword: String) {
        self.email = email
        self.code = code
        self.newPassword = newPassword
    }
}

/// Authenticated; revokes the user's other sessions.
public struct PasswordChangeRequest: Codable, Sendable, Equatable {
    /// The password in use now; a wrong one is refused, and no session ends.
    public var currentPassword: String
    /// The new password; it must meet the server's `PasswordPolicy`.
    public var newPassword: String
    /// A change from `currentPassword` to `newPassword`.
    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// The server's password rules, so a client's live validation matches them exactly.
public struct PasswordPolicy: Codable, Sendable, Equatable {
    /// In Unicode characters.
    public var minimumLength: Int
    /// In Unicode characters.
    public var maximumLength: Int
    /// Passwords whose UTF-8 form is longer than this many bytes are refused rather than truncated.
    public var maximumBytes: Int
    /// Whether common passwords are refused (they are, by chatterd).
    public var blocksCommonPasswords: Bool

    /// A policy as chatterd sends it.
    public init(minimumLength: Int, maximumLength: Int, maximumBytes: Int, blocksCommonPasswords: Bool) {
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.maximumBytes = maximumBytes
        self.blocksCommonPasswords = blocksCommonPasswords
    }
}

/// `POST /v1/auth/refresh` body. The refresh token is single-use: the answer carries the next one.
public struct RefreshRequest: Codable, Sendable, Equatable {
    /// The session's latest refresh token. Presenting a retired one revokes the whole session
    /// (`refresh_token_reused`).
    public var refreshToken: String
    /// A refresh with `refreshToken`.
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// `POST /v1/auth/signout` body; an empty body signs out this session only.
public struct SignOutRequest: Codable, Sendable, Equatable {
    /// Sign out every device of this user, not only this session. Absent means false.
    public var all: Bool
    /// A sign-out of this session, or of every session of the user with `all`.
    public init(all: Bool = false) { self.all = all }

    enum CodingKeys: String, CodingKey { case all }

    /// Reads `{}` or `{"all": true}`; a missing `all` means false.
    public init(from decoder: any Decoder) throws {
        all = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .all) ?? false
    }
}

/// One of the user's active sessions, as `GET /v1/sessions` lists them.
public struct SessionInfo: Codable, Sendable, Equatable {
    /// The session's id: `DELETE /v1/sessions/<id>` (`ChatterClient.revokeSession(id:)`) ends it.
    public var id: String
    /// The `User-Agent` the client sent when it signed in, for a person to recognize the device; nil if it sent
    /// none.
    public var userAgent: String?
    /// When the session signed in, as UNIX time (seconds).
    public var createdAt: Double
    /// When the session last made a request, as UNIX time (seconds); updated at most once a minute.
    public var lastUsedAt: Double
    /// Whether this is the session that asked for the list.
    public var current: Bool
    /// The second factor its sign-in passed besides its method (`totp`, `recovery_code`, or `passkey` for a
    /// passkey sign-in, two factors in one); nil for a one-factor sign-in.
    public var secondFactor: String?
    /// The app (`TEAMID.bundle.id`) whose install App Attest vouched for the sign-in (an `App-Attest-Assertion`):
    /// the operator's genuine app on a genuine Apple device. nil for a sign-in without one.
    public var attestedApp: String?

    /// A session as chatterd lists it.
    public init(
        id: String, userAgent: String?, createdAt: Double, lastUsedAt: Double, current: Bool, secondFactor: String? = nil, attestedApp: String? = nil
    ) {
        self.id = id
        self.userAgent = userAgent
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.current = current
        self.secondFactor = secondFactor
        self.attestedApp = attestedApp
    }
}

/// One change to how the account signs in or who is signed in to it, as `GET /v1/account/history` lists them
/// (newest first): the events chatterd mails the owner about, and new recovery codes and sessions ended, so
/// an app can show them beside the sessions.
public struct AccountEvent: Codable, Sendable, Equatable {
    /// What happened: `passkey_added`, `passkey_removed`, `second_factor_enabled`, `second_factor_disabled`,
    /// `recovery_code_used`, `recovery_codes_regenerated`, `password_changed`, `password_reset`, `password_set`,
    /// `sign_out_all`, `session_revoked`, `admin_second_factor_reset`; a newer chatterd may add others.
    public var kind: String
    /// When, as UNIX time (seconds).
    public var at: Double
    /// The `User-Agent` of the device that did it; nil when it sent none, or an operator did it.
    public var userAgent: String?
    /// The server's operator did it, not the account's owner.
    public var byOperator: Bool

    /// An event as chatterd lists it.
    public init(kind: String, at: Double, userAgent: String?, byOperator: Bool) {
        self.kind = kind
        self.at = at
        self.userAgent = userAgent
        self.byOperator = byOperator
    }
}

/// A one-time link a web view opens to become signed in with a cookie session.
public struct WebSessionResponse: Codable, Sendable, Equatable {
    /// Path (relative to the server) that sets the cookie and redirects; valid once, for a minute.
    public var url: String
    /// Seconds the link stays valid.
    public var expiresIn: Int
    /// An answer as chatterd sends it; `ChatterClient.webSessionRequest()` turns it into a request for a web view.
    public init(url: String, expiresIn: Int) {
        self.url = url
        self.expiresIn = expiresIn
    }

    /// The app loads the link with this header set (`appHeaderValue`): a link followed any other way (from
    /// a page, a message or the address bar) asks before signing the browser in, so nobody can sign a
    /// stranger's browser into their own account. A page cannot add headers to a navigation; an app can.
    public static let appHeader = "X-Chatter-Web-Session"
    /// The value the app sends in `appHeader`.
    public static let appHeaderValue = "app"
}

/// `POST /v1/chatts` body: a chatt posted under the signed-in user.
public struct NewChattRequest: Codable, Sendable, Equatable {
    /// The chatt's text; chatterd refuses more than `Limits.messageCharacters` characters.
    public var message: String
    /// A post of `message`.
    public init(message: String) { self.message = message }
}

/// One chatt of the native timeline.
public struct ChattItem: Codable, Sendable, Equatable {
    /// A UUID string; `GET /v1/chatts?before=<id>` continues with older chatts.
    public var id: String
    /// The author's `UserProfile.id`; nil for an anonymous post.
    public var userID: String?
    /// The author's display name when the chatt was posted (or the name given with an anonymous post).
    public var name: String
    /// The chatt's text.
    public var message: String
    /// UNIX time.
    public var time: Double

    /// A chatt as chatterd sends it.
    public init(id: String, userID: String?, name: String, message: String, time: Double) {
        self.id = id
        self.userID = userID
        self.name = name
        self.message = message
        self.time = time
    }
}

/// One page of the timeline, newest first; pass `next` as `before` to read older chatts.
public struct ChattPage: Codable, Sendable, Equatable {
    /// Newest first; at most the requested limit (50 unless asked otherwise).
    public var chatts: [ChattItem]
    /// The id to pass as `before` for the next, older page; nil when this page is the last. A full page always has
    /// one, so the next page may be empty.
    public var next: String?
    /// A page as chatterd sends it.
    public init(chatts: [ChattItem], next: String?) {
        self.chatts = chatts
        self.next = next
    }
}

/// `error` codes of 401 answers, which tell a client what to do next (the raw values of `ErrorCode`'s cases).
public enum AuthErrorCode {
    /// The access token has expired: refresh, then retry.
    public static let accessTokenExpired = ErrorCode.accessTokenExpired.rawValue
    /// The access token is unknown or revoked: the session is gone.
    public static let invalidAccessToken = ErrorCode.invalidAccessToken.rawValue
    /// Refresh failed for good (unknown, expired, revoked or reused token): sign in again.
    public static let invalidRefreshToken = ErrorCode.invalidRefreshToken.rawValue
    /// A retired refresh token was presented again; the whole session has been revoked.
    public static let refreshTokenReused = ErrorCode.refreshTokenReused.rawValue
}
