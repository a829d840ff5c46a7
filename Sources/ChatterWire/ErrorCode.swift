/// Every `error` code chatterd answers with (`ErrorBody.error`): the one catalog chatterd writes from and
/// clients branch on. Codes are stable; a new one is added here before anything answers it.
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
    // Sessions and tokens (401s decide what a client does next: see `AuthErrorCode`).
    /// No credentials were sent to a route that needs a session.
    case authenticationRequired = "authentication_required"
    /// The access token has expired: refresh, then retry.
    case accessTokenExpired = "access_token_expired"
    /// The access token is unknown or revoked: the session is gone.
    case invalidAccessToken = "invalid_access_token"
    /// Refresh failed for good (unknown, expired, revoked or reused token): sign in again.
    case invalidRefreshToken = "invalid_refresh_token"
    /// A retired refresh token was presented again; the whole session has been revoked.
    case refreshTokenReused = "refresh_token_reused"
    /// A course chatterID that is unknown, or whose account no longer exists.
    case invalidSession = "invalid_session"
    /// A course chatterID past its lifetime.
    case expiredSession = "expired_session"
    /// A web-session hand-off link that is expired or used.
    case invalidHandoff = "invalid_handoff"
    /// `GET …/web-session/csrf` from a client that is not signed in with a cookie.
    case noCookieSession = "no_cookie_session"
    /// A cookie-authenticated change or a web form without this browser's CSRF token for its action.
    case csrfFailed = "csrf_failed"

    // Signing in.
    /// A provider's ID token failed a check (`ErrorBody.check` names it).
    case invalidToken = "invalid_token"
    /// The provider's signing keys could not be fetched.
    case keysUnavailable = "keys_unavailable"
    case invalidEmail = "invalid_email"
    case invalidCode = "invalid_code"
    case invalidCredentials = "invalid_credentials"
    case weakPassword = "weak_password"
    /// A password change whose current password is wrong.
    case wrongPassword = "wrong_password"
    /// An operator disabled the account.
    case accountDisabled = "account_disabled"
    /// Password hashing is at capacity: retry after `Retry-After`.
    case busy
    case rateLimited = "rate_limited"

    // Requests.
    case invalidBody = "invalid_body"
    case invalidForm = "invalid_form"
    case fieldTooLong = "field_too_long"
    case bodyTooLarge = "body_too_large"
    case emptyMessage = "empty_message"
    case invalidLimit = "invalid_limit"
    case invalidCursor = "invalid_cursor"
    case anonymousPostingDisabled = "anonymous_posting_disabled"
    case notFound = "not_found"
    /// A request Hummingbird itself refused as malformed (a bad URL-encoded form, a bad header).
    case badRequest = "bad_request"
    case notAnOperator = "not_an_operator"
    /// An operator acting on their own account from the admin pages.
    case ownAccount = "own_account"
    case internalError = "internal"
}

extension ErrorBody {
    /// `error` as a catalog code; nil for a code this client does not know (a newer server).
    public var code: ErrorCode? { ErrorCode(rawValue: error) }
}
