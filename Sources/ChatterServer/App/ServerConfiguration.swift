import Foundation
import Logging

/// Everything an operator can set. Defaults make `swift run chatterd` work with no flags; each field can be
/// set from the environment (`CHATTERD_*`) and overridden by a flag (see the README's table).
public struct ServerConfiguration: Sendable {
    public enum Transport: Sendable, Equatable {
        /// HTTPS with `chatterd.crt`/`chatterd.key` generated in the data directory on first start.
        case developmentTLS
        /// HTTPS with the operator's certificate chain and key (PEM files).
        case tls(certificatePath: String, keyPath: String)
        /// Plain HTTP, for running behind a TLS-terminating proxy.
        case http
    }

    public var dataDirectory = "chatterd-data"
    public var bindAddress = "127.0.0.1"
    public var port = 8443
    /// Extra names (DNS names or IP addresses) the development certificate must cover.
    public var hostnames: [String] = []
    public var transport = Transport.developmentTLS
    public var googleClientIDs: [String] = []
    public var googleJWKSURL = IdentityProvider.googleJWKSURL
    /// How long a chatterID is valid, in seconds. It does not follow the ID token's own `exp` (about an
    /// hour for Google): the ID token is checked once at sign-in and never extends a session.
    public var sessionLifetime: Double {
        get { lifetimes.course }
        set { lifetimes.course = newValue }
    }
    public var allowAnonymousPosting = false
    public var logLevel = Logger.Level.info
    public var googleNonce = IdentityProvider.NonceForm.sha256
    /// The app's bundle ID and any Services IDs Sign in with Apple tokens are issued to.
    public var appleClientIDs: [String] = []
    public var appleJWKSURL = IdentityProvider.appleJWKSURL
    public var lifetimes = SessionService.Lifetimes()
    public var minimumPasswordLength = 8
    public var bcryptCost: UInt8 = 12
    /// `log` (development: the server log and an outbox folder) or an `smtp://` / `smtps://` URL.
    public var mail = "log"
    public var mailFrom = "Chatter <no-reply@localhost>"
    /// Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` / `Forwarded` headers name the client.
    public var trustedProxies: [String] = []
    /// The Google OAuth web client ID of the "Sign in with Google" button on `/auth`; no button without one.
    public var googleWebClientID: String?
    /// Origins allowed to frame the web pages (an app's own web origin); none by default.
    public var webFrameAncestors: [String] = []

    public init() {}

    /// Every audience a Google ID token may be issued to: the native clients' and the web button's.
    public var googleAudiences: [String] { googleClientIDs + (googleWebClientID.map { [$0] } ?? []) }

    /// `sqlite:PATH` or a `postgres://` URL; nil keeps SQLite in the data directory.
    public var database: String?

    public var databasePath: String { (dataDirectory as NSString).appendingPathComponent("chatterd.sqlite") }

    public func databaseLocation() throws -> DatabaseLocation {
        try database.map(DatabaseLocation.init) ?? .sqlite(path: databasePath)
    }

    /// Applies the `CHATTERD_*` variables that are set; invalid values are reported, not ignored.
    public mutating func apply(environment env: [String: String]) throws {
        func value(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let v = value("CHATTERD_DATA_DIR") { dataDirectory = v }
        if let v = value("CHATTERD_DATABASE_URL") { database = v }
        if let v = value("CHATTERD_BIND") { bindAddress = v }
        if let v = value("CHATTERD_PORT") { port = try Self.parse(Int.init, v, "CHATTERD_PORT") }
        if let v = value("CHATTERD_HOSTS") { hostnames = Self.list(v) }
        if let v = value("CHATTERD_GOOGLE_CLIENT_IDS") { googleClientIDs = Self.list(v) }
        if let v = value("CHATTERD_GOOGLE_JWKS_URL") { googleJWKSURL = v }
        if let v = value("CHATTERD_SESSION_LIFETIME") { sessionLifetime = try Self.parse(Double.init, v, "CHATTERD_SESSION_LIFETIME") }
        if let v = value("CHATTERD_ALLOW_ANONYMOUS_POSTING") { allowAnonymousPosting = try Self.flag(v, "CHATTERD_ALLOW_ANONYMOUS_POSTING") }
        if let v = value("CHATTERD_GOOGLE_NONCE") { googleNonce = try Self.parse(IdentityProvider.NonceForm.init(rawValue:), v, "CHATTERD_GOOGLE_NONCE") }
        if let v = value("CHATTERD_APPLE_CLIENT_IDS") { appleClientIDs = Self.list(v) }
        if let v = value("CHATTERD_APPLE_JWKS_URL") { appleJWKSURL = v }
        if let v = value("CHATTERD_ACCESS_LIFETIME") { lifetimes.access = try Self.parse(Double.init, v, "CHATTERD_ACCESS_LIFETIME") }
        if let v = value("CHATTERD_SESSION_IDLE") { lifetimes.idle = try Self.parse(Double.init, v, "CHATTERD_SESSION_IDLE") }
        if let v = value("CHATTERD_SESSION_ABSOLUTE") { lifetimes.absolute = try Self.parse(Double.init, v, "CHATTERD_SESSION_ABSOLUTE") }
        if let v = value("CHATTERD_MIN_PASSWORD_LENGTH") { minimumPasswordLength = try Self.parse(Int.init, v, "CHATTERD_MIN_PASSWORD_LENGTH") }
        if let v = value("CHATTERD_BCRYPT_COST") { bcryptCost = try Self.parse(UInt8.init, v, "CHATTERD_BCRYPT_COST") }
        if let v = value("CHATTERD_MAIL") { mail = v }
        if let v = value("CHATTERD_MAIL_FROM") { mailFrom = v }
        if let v = value("CHATTERD_TRUSTED_PROXIES") { trustedProxies = Self.list(v) }
        if let v = value("CHATTERD_GOOGLE_WEB_CLIENT_ID") { googleWebClientID = v }
        if let v = value("CHATTERD_WEB_FRAME_ANCESTORS") { webFrameAncestors = Self.list(v) }
        if let v = value("CHATTERD_LOG_LEVEL") { logLevel = try Self.parse(Logger.Level.init(rawValue:), v, "CHATTERD_LOG_LEVEL") }
        let cert = value("CHATTERD_TLS_CERT"), key = value("CHATTERD_TLS_KEY")
        if let cert, let key { transport = .tls(certificatePath: cert, keyPath: key) }
        if (cert == nil) != (key == nil) { throw ConfigurationError("set both CHATTERD_TLS_CERT and CHATTERD_TLS_KEY, or neither") }
        if let v = value("CHATTERD_HTTP"), try Self.flag(v, "CHATTERD_HTTP") { transport = .http }
    }

    public func validate() throws {
        guard (1...65535).contains(port) else { throw ConfigurationError("port \(port) is not between 1 and 65535") }
        guard sessionLifetime >= 60 else { throw ConfigurationError("session lifetime must be at least 60 seconds") }
        guard lifetimes.access >= 60, lifetimes.idle >= lifetimes.access, lifetimes.absolute >= lifetimes.idle else {
            throw ConfigurationError("lifetimes must satisfy 60 s ≤ access ≤ idle ≤ absolute")
        }
        guard (4...31).contains(bcryptCost) else { throw ConfigurationError("bcrypt cost must be between 4 and 31 (12 or more in production)") }
        guard minimumPasswordLength >= 1 else { throw ConfigurationError("minimum password length must be at least 1") }
        _ = try TrustedProxies(trustedProxies)
        _ = try databaseLocation()
        for origin in webFrameAncestors {
            guard let url = URL(string: origin), ["https", "http"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty || url.path == "/",
                !origin.contains(";"), !origin.contains(" ")
            else { throw ConfigurationError("frame ancestor \(origin) is not an origin such as https://app.example.com") }
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func parse<T>(_ make: (String) -> T?, _ text: String, _ name: String) throws -> T {
        guard let value = make(text) else { throw ConfigurationError("\(name)=\(text) is not valid") }
        return value
    }

    static func flag(_ text: String, _ name: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError("\(name)=\(text) is not a boolean (use 1 or 0)")
        }
    }
}

public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
