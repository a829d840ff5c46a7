/// A limit refused the request. The domain throws `counted(_:retryAfter:)`, which counts it in
/// `chatterd_rate_limited_total` by `limit`; a value made elsewhere (a test, a page) counts nothing.
public struct LimitReached: Error, Equatable {
    public enum Limit: String, Sendable {
        case emailCode = "email_code"
        /// A code went to the address within the cooldown: the one sent may still be on its way.
        case emailCodeResend = "email_code_resend"
        case passwordSignIn = "password_sign_in"
        case passwordChange = "password_change"
        case webSession = "web_session"
        case passkey
        case appAttest = "app_attest"
        case secondFactor = "second_factor"
    }

    public var limit: Limit
    /// Seconds until the request may succeed.
    public var retryAfter: Int

    public init(_ limit: Limit, retryAfter: Int) {
        self.limit = limit
        self.retryAfter = retryAfter
    }

    /// The refusal a limit makes, counted.
    package static func counted(_ limit: Limit, retryAfter: Int) -> LimitReached {
        ChatterMetrics.rateLimited(limit.rawValue)
        return LimitReached(limit, retryAfter: retryAfter)
    }
}
