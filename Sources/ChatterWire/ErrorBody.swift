/// Every error chatterd answers with, whatever the route: a stable machine-readable `error` code and a
/// `message` a person can act on. Token failures also name the `check` that failed and, for an audience
/// mismatch, the audience the token carried, since that is the mistake integrators make most.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// A stable, machine-readable code to branch on, such as `invalid_token`, `rate_limited` or `expired_session`;
    /// `AuthErrorCode` lists the 401 codes that decide what a client does next.
    public var error: String
    /// A sentence a person can act on; `ChatterError.message` shows it unchanged.
    public var message: String
    /// For a refused ID token, the check that failed (`wrong_audience`, `expired`, `nonce_mismatch`, …); nil for
    /// other errors.
    public var check: String?
    /// For a `wrong_audience` failure, the audience the token carried, to compare with the client ID the app sent;
    /// nil otherwise.
    public var audience: [String]?
    /// For `second_factor_required` from a sign-in: the waiting sign-in a code completes; nil otherwise (and when
    /// the route cannot take a second step, such as the course API's).
    public var secondFactor: SecondFactorChallenge?

    /// An error body; `check`, `audience` and `secondFactor` are left out of the JSON when nil.
    public init(error: String, message: String, check: String? = nil, audience: [String]? = nil, secondFactor: SecondFactorChallenge? = nil) {
        self.error = error
        self.message = message
        self.check = check
        self.audience = audience
        self.secondFactor = secondFactor
    }
}
