/// Every error chatterd answers with, whatever the route: a stable machine-readable `error` code and a
/// `message` a person can act on. Token failures also name the `check` that failed and, for an audience
/// mismatch, the audience the token carried, since that is the mistake integrators make most.
public struct ErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var message: String
    public var check: String?
    public var audience: [String]?

    public init(error: String, message: String, check: String? = nil, audience: [String]? = nil) {
        self.error = error
        self.message = message
        self.check = check
        self.audience = audience
    }
}
