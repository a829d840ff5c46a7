// The native, versioned JSON API (under /v1). Both chatterd and ChatterKit use these types, so the two
// sides cannot drift apart. Times are seconds: `expiresIn` counts from the response; `*At` are UNIX times.

/// Route paths of the native API.
public enum NativePath {
    public static let passwordPolicy = "/v1/auth/password-policy"
    public static let google = "/v1/auth/google"
    public static let apple = "/v1/auth/apple"
    public static let emailCode = "/v1/auth/email/code"
    public static let emailVerify = "/v1/auth/email/verify"
    public static let passwordSignUp = "/v1/auth/password/signup"
    public static let passwordSignIn = "/v1/auth/password/signin"
    public static let passwordReset = "/v1/auth/password/reset"
    public static let passwordChange = "/v1/auth/password/change"
    public static let refresh = "/v1/auth/refresh"
    public static let signOut = "/v1/auth/signout"
    public static let webSession = "/v1/auth/web-session"
    public static let me = "/v1/me"
    public static let sessions = "/v1/sessions"
    public static let chatts = "/v1/chatts"
    public static let appleNotifications = "/v1/apple/notifications"
    public static let openAPI = "/openapi.json"
}

/// Every successful sign-in and every refresh answers with this.
public struct SessionResponse: Codable, Sendable, Equatable {
    /// Opaque bearer token for `Authorization: Bearer …`; short-lived.
    public var accessToken: String
    /// Opaque, single-use: every refresh returns a new one and retires this one.
    public var refreshToken: String
    public var tokenType: String
    /// Seconds until `accessToken` expires.
    public var expiresIn: Int
    /// Seconds until the session's absolute end; refreshing never extends past it.
    public var refreshExpiresIn: Int
    public var sessionID: String
    public var user: UserProfile
    /// After a sign-in with an email address (code or password): proves this device signed in to that
    /// address before. Keep it (it is not a session) and send it with later password sign-ins and code
    /// requests for the address: the device then has its own allowance, which no one else's failures use up.
    public var deviceToken: String?

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
    public var givenName: String?
    public var familyName: String?
    public var middleName: String?
    public var nickname: String?
    public var namePrefix: String?
    public var nameSuffix: String?

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

    public var isEmpty: Bool {
        [givenName, familyName, middleName, nickname, namePrefix, nameSuffix].allSatisfy { ($0 ?? "").isEmpty }
    }
}

public struct UserProfile: Codable, Sendable, Equatable {
    public var id: String
    public var displayName: String
    public var email: String?
    public var emailVerified: Bool
    public var name: NameParts?
    /// Sign-in methods linked to this account: "google", "apple", "email", "password".
    public var methods: [String]

    public init(id: String, displayName: String, email: String?, emailVerified: Bool, name: NameParts?, methods: [String]) {
        self.id = id
        self.displayName = displayName
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.methods = methods
    }
}

public struct GoogleSignInRequest: Codable, Sendable, Equatable {
    public var idToken: String
    public var clientID: String
    /// The raw nonce the app generated, when it asked Google to embed its hash.
    public var nonce: String?

    public init(idToken: String, clientID: String, nonce: String? = nil) {
        self.idToken = idToken
        self.clientID = clientID
        self.nonce = nonce
    }
}

public struct AppleSignInRequest: Codable, Sendable, Equatable {
    public var identityToken: String
    /// The raw nonce; the token carries hex(SHA-256(rawNonce)).
    public var rawNonce: String?
    /// Only present on the first sign-in, when Apple shares them.
    public var name: NameParts?
    public var email: String?

    public init(identityToken: String, rawNonce: String?, name: NameParts? = nil, email: String? = nil) {
        self.identityToken = identityToken
        self.rawNonce = rawNonce
        self.name = name
        self.email = email
    }
}

public struct EmailCodeRequest: Codable, Sendable, Equatable {
    public var email: String
    /// The `deviceToken` of an earlier sign-in to this address, if the device has one.
    public var deviceToken: String?
    public init(email: String, deviceToken: String? = nil) {
        self.email = email
        self.deviceToken = deviceToken
    }
}

/// The same answer whether or not the address has an account.
public struct EmailCodeResponse: Codable, Sendable, Equatable {
    public var status: String
    /// Seconds before another code may be requested for this address.
    public var resendAfter: Int
    /// Seconds the code stays valid.
    public var expiresIn: Int

    public init(status: String = "sent", resendAfter: Int, expiresIn: Int) {
        self.status = status
        self.resendAfter = resendAfter
        self.expiresIn = expiresIn
    }
}

public struct EmailVerifyRequest: Codable, Sendable, Equatable {
    public var email: String
    public var code: String
    public init(email: String, code: String) {
        self.email = email
        self.code = code
    }
}

/// Sign-up proves the address with an emailed code, so it never reveals whether an account exists.
public struct PasswordSignUpRequest: Codable, Sendable, Equatable {
    public var email: String
    public var code: String
    public var password: String
    public var displayName: String?

    public init(email: String, code: String, password: String, displayName: String? = nil) {
        self.email = email
        self.code = code
        self.password = password
        self.displayName = displayName
    }
}

public struct PasswordSignInRequest: Codable, Sendable, Equatable {
    public var email: String
    public var password: String
    /// The `deviceToken` of an earlier sign-in to this address, if the device has one.
    public var deviceToken: String?
    public init(email: String, password: String, deviceToken: String? = nil) {
        self.email = email
        self.password = password
        self.deviceToken = deviceToken
    }
}

/// "Forgot password": an emailed code and the new password. Revokes every session of the account.
public struct PasswordResetRequest: Codable, Sendable, Equatable {
    public var email: String
    public var code: String
    public var newPassword: String
    public init(email: String, code: String, newPassword: String) {
        self.email = email
        self.code = code
        self.newPassword = newPassword
    }
}

/// Authenticated; revokes the user's other sessions.
public struct PasswordChangeRequest: Codable, Sendable, Equatable {
    public var currentPassword: String
    public var newPassword: String
    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// The server's password rules, so a client's live validation matches them exactly.
public struct PasswordPolicy: Codable, Sendable, Equatable {
    /// In Unicode characters.
    public var minimumLength: Int
    public var maximumLength: Int
    /// Passwords whose UTF-8 form is longer than this many bytes are refused rather than truncated.
    public var maximumBytes: Int
    /// Whether common passwords are refused (they are, by chatterd).
    public var blocksCommonPasswords: Bool

    public init(minimumLength: Int, maximumLength: Int, maximumBytes: Int, blocksCommonPasswords: Bool) {
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.maximumBytes = maximumBytes
        self.blocksCommonPasswords = blocksCommonPasswords
    }
}

public struct RefreshRequest: Codable, Sendable, Equatable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

public struct SignOutRequest: Codable, Sendable, Equatable {
    /// Sign out every device of this user, not only this session. Absent means false.
    public var all: Bool
    public init(all: Bool = false) { self.all = all }

    enum CodingKeys: String, CodingKey { case all }

    public init(from decoder: any Decoder) throws {
        all = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .all) ?? false
    }
}

public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: String
    public var userAgent: String?
    public var createdAt: Double
    public var lastUsedAt: Double
    public var current: Bool

    public init(id: String, userAgent: String?, createdAt: Double, lastUsedAt: Double, current: Bool) {
        self.id = id
        self.userAgent = userAgent
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.current = current
    }
}

/// A one-time link a web view opens to become signed in with a cookie session.
public struct WebSessionResponse: Codable, Sendable, Equatable {
    /// Path (relative to the server) that sets the cookie and redirects; valid once, for a minute.
    public var url: String
    public var expiresIn: Int
    public init(url: String, expiresIn: Int) {
        self.url = url
        self.expiresIn = expiresIn
    }

    /// The app loads the link with this header set (`appHeaderValue`): a link followed any other way (from
    /// a page, a message or the address bar) asks before signing the browser in, so nobody can sign a
    /// stranger's browser into their own account. A page cannot add headers to a navigation; an app can.
    public static let appHeader = "X-Chatter-Web-Session"
    public static let appHeaderValue = "app"
}

public struct NewChattRequest: Codable, Sendable, Equatable {
    public var message: String
    public init(message: String) { self.message = message }
}

public struct ChattItem: Codable, Sendable, Equatable {
    public var id: String
    public var userID: String?
    public var name: String
    public var message: String
    /// UNIX time.
    public var time: Double

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
    public var chatts: [ChattItem]
    public var next: String?
    public init(chatts: [ChattItem], next: String?) {
        self.chatts = chatts
        self.next = next
    }
}

/// `error` codes of 401 answers, which tell a client what to do next.
public enum AuthErrorCode {
    /// The access token has expired: refresh, then retry.
    public static let accessTokenExpired = "access_token_expired"
    /// The access token is unknown or revoked: the session is gone.
    public static let invalidAccessToken = "invalid_access_token"
    /// Refresh failed for good (unknown, expired, revoked or reused token): sign in again.
    public static let invalidRefreshToken = "invalid_refresh_token"
    /// A retired refresh token was presented again; the whole session has been revoked.
    public static let refreshTokenReused = "refresh_token_reused"
}
