import ChatterCore

/// What chatterd accepts from one OpenID Connect provider. The algorithm allow-list lives here, never in
/// the token: a token's `alg` header only selects among what the provider is known to use.
public struct IdentityProvider: Sendable {
    public var name: String
    public var issuers: Set<String>
    /// The one spelling identities are stored under, whichever of `issuers` a token names: one person
    /// signing in through two spellings is still one person.
    public var canonicalIssuer: String
    public var algorithms: Set<String>
    /// The client IDs (audiences) tokens must be issued to.
    public var audiences: Set<String>
    /// How the token's `nonce` relates to the raw nonce the app sends.
    public var nonce: NonceForm

    public enum NonceForm: String, Sendable {
        /// The token carries hex(SHA-256(raw nonce)), as Sign in with Apple asks apps to do.
        case sha256
        /// The token carries the raw nonce, as some Google Sign-In SDKs do.
        case raw
    }

    public init(
        name: String, issuers: Set<String>, canonicalIssuer: String? = nil, algorithms: Set<String>, audiences: Set<String>,
        nonce: NonceForm = .sha256
    ) {
        self.name = name
        self.issuers = issuers
        self.canonicalIssuer = canonicalIssuer ?? issuers.sorted().last ?? ""
        self.algorithms = algorithms
        self.audiences = audiences
        self.nonce = nonce
    }

    public static let googleJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"

    public static let appleJWKSURL = "https://appleid.apple.com/auth/keys"
    /// Apple's token service: `/auth/token` exchanges an app's authorization code, `/auth/revoke` revokes.
    public static let appleAuthURL = "https://appleid.apple.com"

    public static func google(clientIDs: some Sequence<String>, nonce: NonceForm = .sha256) -> IdentityProvider {
        IdentityProvider(
            name: "Google", issuers: ["accounts.google.com", "https://accounts.google.com"], canonicalIssuer: "https://accounts.google.com",
            algorithms: ["RS256"],
            audiences: Set(clientIDs), nonce: nonce)
    }

    /// `clientIDs` are the app's bundle ID and any Services IDs (for Sign in with Apple on the web).
    public static func apple(clientIDs: some Sequence<String>, nonce: NonceForm = .sha256) -> IdentityProvider {
        IdentityProvider(name: "Apple", issuers: ["https://appleid.apple.com"], algorithms: ["RS256"], audiences: Set(clientIDs), nonce: nonce)
    }
}
