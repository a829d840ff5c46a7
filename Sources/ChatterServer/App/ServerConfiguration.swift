import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import Logging
import X509

/// Everything an operator can set. Defaults make `swift run chatterd` work with no flags; `settings`
/// (ServerSetting.swift) lists each flag and `CHATTERD_*` variable once.
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
    /// Native sessions only bound to a DPoP key (RFC 9449): sign-ins, refreshes and tokens without a proof
    /// are refused on the native API (`DPoPGate.required`).
    public var requireDPoP = false
    /// DPoP proofs must carry a server nonce (RFC 9449 §8), which bounds how far ahead a stolen device could
    /// have made proofs; costs a client one extra round trip when its nonce is stale.
    public var dpopNonces = false
    /// The apps (`TEAMID.bundle.id`) whose App Attest keys chatterd accepts; none turns App Attest off.
    public var appAttestAppIDs: [String] = []
    /// Accept App Attest keys of the development environment (Xcode builds) too.
    public var appAttestDevelopment = false
    /// New accounts only for installs of these apps that App Attest vouches for (`SignUpGate`); each must be one of
    /// `appAttestAppIDs`. None: anyone may sign up.
    public var appAttestSignUpAppIDs: [String] = []
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.text
    /// Whether chatterd measures itself and serves `/metrics`.
    public var metricsEnabled = true
    /// `HOST:PORT` of a listener of its own for `/metrics`; nil serves it on the main listener.
    public var metricsBind: String?
    /// A bearer token that lets anyone who presents it read `/metrics`; nil: loopback peers only.
    public var metricsToken: String?
    public var googleNonce = IdentityProvider.NonceForm.sha256
    /// The app's bundle ID and any Services IDs Sign in with Apple tokens are issued to.
    public var appleClientIDs: [String] = []
    public var appleJWKSURL = IdentityProvider.appleJWKSURL
    /// The Sign in with Apple key chatterd signs its client secrets with (all three, or none: then no Apple
    /// token is kept, and none revoked).
    public var appleTeamID: String?
    public var appleKeyID: String?
    public var applePrivateKeyPath: String?
    /// Apple's token service (`/auth/token`, `/auth/revoke`).
    public var appleAuthURL = IdentityProvider.appleAuthURL

    /// The key `--apple-team-id`, `--apple-key-id` and `--apple-private-key` name; nil when none is set.
    public func appleSigningKey() throws -> AppleSigningKey? {
        switch (appleTeamID, appleKeyID, applePrivateKeyPath) {
        case (nil, nil, nil): return nil
        case (let team?, let key?, let path?): return try AppleSigningKey.load(teamID: team, keyID: key, path: path)
        default: throw ConfigurationError("--apple-team-id, --apple-key-id and --apple-private-key go together: set all three or none")
        }
    }
    public var lifetimes = SessionLifetimes()
    public var minimumPasswordLength = 8
    public var bcryptCost: UInt8 = 12
    /// Where code mails go: the log (development), or an SMTP server (`--mail smtp://…`).
    public var mail = MailDelivery.log
    public var mailFrom = "Chatter <no-reply@localhost>"
    /// Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` / `Forwarded` headers name the client.
    public var trustedProxies: [String] = []
    /// Days the audit log keeps an event; 0 keeps every one.
    public var auditRetentionDays = 365
    /// Deadlines for each step of a connection, and how many may be open at once.
    public var connections = ConnectionLimits()
    /// IPv6 clients are limited by this many leading bits of their address (`ClientNetwork`).
    public var ipv6LimitPrefix = ClientNetwork.defaultPrefix
    /// The Google OAuth web client ID of the "Sign in with Google" button on `/auth`; no button without one.
    public var googleWebClientID: String?
    /// Origins allowed to frame the web pages (an app's own web origin); none by default.
    public var webFrameAncestors: [String] = []
    /// The passkeys' relying party ID; nil: the first of `hostnames`, else `localhost`.
    public var passkeyRPID: String?
    /// Origins a passkey ceremony may come from; empty: `https://RP_ID` (with the port unless 443).
    public var passkeyOrigins: [String] = []
    /// Roots attestation chains may end in, read from `--passkey-trust-anchors` when chatterd starts.
    public var passkeyTrustAnchors: [Certificate] = []
    /// Register only a passkey whose attestation chain ends in a trust anchor: `none` and self attestation (so
    /// synced passkeys) are refused.
    public var passkeyRequireTrustedAttestation = false
    /// Passkey options requests one client network may make per 10 minutes (a /48 ten times that).
    public var passkeyCeremoniesPerNetwork = PasskeyService.defaultCeremoniesPerNetwork
    /// `TEAMID.bundle.id` of the Apple apps that share the passkeys (`apple-app-site-association`).
    public var appleAppIDs: [String] = []
    /// `package:SHA256` of the Android apps that share the passkeys (`assetlinks.json`).
    public var androidApps: [String] = []
    /// Set by `--tls-cert`/`--tls-key` and `--http`; `apply` turns them into `transport`.
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    var plainHTTP = false

    public init() {}

    /// Who chatterd is to passkey authenticators, from the settings above.
    public var relyingParty: RelyingParty {
        let id = passkeyRPID ?? hostnames.first ?? "localhost"
        let android = appAssociation.androidApps.flatMap(\.origins)
        // The pages' own origin by default: plain HTTP on localhost is a browser's secure context, so `--http`
        // for development gets `http://localhost:PORT`; anywhere else plain HTTP is a TLS proxy's back end.
        let scheme = plainHTTP && id == "localhost" ? "http" : "https"
        let defaultPort = scheme == "https" ? 443 : 80
        let origins = passkeyOrigins.isEmpty ? ["\(scheme)://\(id)" + (port == defaultPort ? "" : ":\(port)")] + android : passkeyOrigins
        return RelyingParty(
            id: id, name: "Chatter", origins: origins, trustAnchors: passkeyTrustAnchors, requiresTrustedAttestation: passkeyRequireTrustedAttestation)
    }

    /// Why passkeys cannot work in a browser with these settings, for the warnings at start: WebAuthn takes
    /// a domain for the relying party ID (no IP address), an origin on that domain or under it, and a secure
    /// context (https, or http on localhost).
    public var passkeyProblems: [String] {
        let party = relyingParty
        var problems: [String] = []
        if party.id.contains(":") || party.id.split(separator: ".").allSatisfy({ $0.allSatisfy(\.isNumber) }) {
            problems.append("the passkey relying party ID \(party.id) is an IP address; browsers take a domain: give --hostname or --passkey-rp-id")
        }
        for origin in party.origins where !origin.hasPrefix("android:") {
            guard let url = URL(string: origin), let host = url.host, let scheme = url.scheme else {
                problems.append("passkey origin \(origin) is not an origin such as https://example.org")
                continue
            }
            if host != party.id, !host.hasSuffix("." + party.id) {
                problems.append("passkey origin \(origin) is not on the relying party ID \(party.id): browsers refuse every ceremony from it")
            }
            if scheme == "http", host != "localhost", !host.hasSuffix(".localhost") {
                problems.append("passkey origin \(origin) is plain http on a host other than localhost: browsers allow passkeys only on https")
            }
        }
        return problems
    }

    /// The apps that share the passkeys; `validate()` reports entries that do not parse (here they are left out).
    public var appAssociation: AppAssociation {
        (try? AppAssociation(appleAppIDs: appleAppIDs, androidApps: androidApps)) ?? AppAssociation()
    }

    /// Every audience a Google ID token may be issued to: the native clients' and the web button's.
    public var googleAudiences: [String] { googleClientIDs + (googleWebClientID.map { [$0] } ?? []) }

    /// `sqlite:PATH` or a `postgres://` URL; nil keeps SQLite in the data directory.
    public var database: String?

    public var databasePath: String { (dataDirectory as NSString).appendingPathComponent("chatterd.sqlite") }

    /// Days a device that passed the second step, and asked, skips it (`--remember-device`); 0: never.
    public var rememberDeviceDays = 30

    /// Whether an operator needs a second factor to use the admin pages (`OperatorAccess`).
    public var adminRequiresSecondFactor = true

    /// The file of the key authenticator secrets are sealed under (`SecondFactorKey`); nil: in the data directory.
    public var secondFactorKeyPath: String?

    public var secondFactorKeyFile: String { secondFactorKeyPath ?? (dataDirectory as NSString).appendingPathComponent("second-factor.key") }

    public func databaseLocation() throws -> DatabaseLocation {
        try database.map(DatabaseLocation.init) ?? .sqlite(path: databasePath)
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
        try connections.validate()
        guard auditRetentionDays >= 0 else { throw ConfigurationError("--audit-retention must be 0 (keep every event) or more days") }
        guard (32...128).contains(ipv6LimitPrefix) else { throw ConfigurationError("--ipv6-limit-prefix must be between 32 and 128") }
        _ = try databaseLocation()
        if let metricsBind, Self.hostAndPort(metricsBind) == nil {
            throw ConfigurationError("--metrics-bind \(metricsBind) is not HOST:PORT")
        }
        if let metricsToken, metricsToken.count < 16 { throw ConfigurationError("--metrics-token must be at least 16 characters") }
        _ = try AppAssociation(appleAppIDs: appleAppIDs, androidApps: androidApps)
        // A check that cannot run must not pass everything: no list of common passwords, no start.
        _ = try PasswordRules.bundledBlocklist.get()
        _ = try appleSigningKey()
        // What chatterd fetches goes over https (plain http only to a stand-in on this machine): the client secret
        // and refresh tokens travel in Apple's request bodies, and a key set read in clear could be anyone's.
        for (flag, url) in [("--google-jwks-url", googleJWKSURL), ("--apple-jwks-url", appleJWKSURL), ("--apple-auth-url", appleAuthURL)] {
            if let problem = OutboundHTTP.problem(with: url) { throw ConfigurationError("\(flag): \(problem)") }
        }
        if let stray = appAttestSignUpAppIDs.first(where: { !appAttestAppIDs.contains($0) }) {
            throw ConfigurationError("--app-attest-sign-up \(stray) is not one of the --app-attest-app-id apps")
        }
        guard passkeyCeremoniesPerNetwork >= 1 else { throw ConfigurationError("--passkey-ceremony-limit must be at least 1") }
        for origin in webFrameAncestors {
            guard let url = URL(string: origin), ["https", "http"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty || url.path == "/",
                !origin.contains(";"), !origin.contains(" ")
            else { throw ConfigurationError("frame ancestor \(origin) is not an origin such as https://app.example.com") }
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension ServerConfiguration {
    /// `HOST:PORT`, or `[IPv6]:PORT`.
    static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
