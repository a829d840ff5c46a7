/// What chatterd accepts from one OpenID Connect provider. The algorithm allow-list lives here, never in
/// the token: a token's `alg` header only selects among what the provider is known to use.
public struct IdentityProvider: Sendable {
    public var name: String
    public var issuers: Set<String>
    public var algorithms: Set<String>
    /// The client IDs (audiences) tokens must be issued to.
    public var audiences: Set<String>

    public init(name: String, issuers: Set<String>, algorithms: Set<String>, audiences: Set<String>) {
        self.name = name
        self.issuers = issuers
        self.algorithms = algorithms
        self.audiences = audiences
    }

    public static let googleJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"

    public static func google(clientIDs: some Sequence<String>) -> IdentityProvider {
        IdentityProvider(
            name: "Google",
            issuers: ["accounts.google.com", "https://accounts.google.com"],
            algorithms: ["RS256"],
            audiences: Set(clientIDs)
        )
    }
}
