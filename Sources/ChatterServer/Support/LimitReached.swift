/// A limit refused the request, counted in `chatterd_rate_limited_total` by `limit` when made.
public struct LimitReached: Error, Equatable {
    public enum Limit: String, Sendable {
        case emailCode = "email_code"
        case passwordSignIn = "password_sign_in"
        case passwordChange = "password_change"
        case webSession = "web_session"
        case passkey
        case secondFactor = "second_factor"
    }

    public var limit: Limit
    /// Seconds until the request may succeed.
    public var retryAfter: Int

    public init(_ limit: Limit, retryAfter: Int) {
        self.limit = limit
        self.retryAfter = retryAfter
        ChatterMetrics.rateLimited(limit.rawValue)
    }
}
