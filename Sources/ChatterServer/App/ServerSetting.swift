import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import Logging

/// One operator setting: its flag, its environment variable, its default as shown, its help, and how a
/// value applies to a `ServerConfiguration`. `ServerConfiguration.settings` lists them all; the flags
/// chatterd accepts, the variables it reads, `chatterd serve --help` and the README's table all come
/// from that one list.
public struct ServerSetting: Sendable {
    public enum Kind: Sendable {
        /// `--name VALUE`; the variable holds the value.
        case value(placeholder: String)
        /// `--name VALUE`, repeatable; the variable holds a comma-separated list.
        case list(placeholder: String)
        /// `--name` alone; the variable holds 1 or 0.
        case flag
    }

    public let name: String
    public let variable: String
    public let kind: Kind
    public let defaultText: String
    public let help: String
    let apply: @Sendable (inout ServerConfiguration, [String]) throws -> Void

    init(
        _ name: String, _ variable: String, _ kind: Kind, default defaultText: String, _ help: String,
        apply: @escaping @Sendable (inout ServerConfiguration, [String]) throws -> Void
    ) {
        self.name = name
        self.variable = variable
        self.kind = kind
        self.defaultText = defaultText
        self.help = help
        self.apply = apply
    }

    /// A single-valued setting whose text is parsed by `parse` (nil: invalid).
    static func value<T>(
        _ name: String, _ variable: String, _ placeholder: String, default defaultText: String, _ help: String,
        parse: @escaping @Sendable (String) -> T?, set: @escaping @Sendable (inout ServerConfiguration, T) -> Void
    ) -> ServerSetting {
        ServerSetting(name, variable, .value(placeholder: placeholder), default: defaultText, help) { config, values in
            guard let text = values.last else { return }
            guard let value = parse(text) else { throw ConfigurationError("--\(name) / \(variable): \(text) is not valid") }
            set(&config, value)
        }
    }

    static func text(
        _ name: String, _ variable: String, _ placeholder: String, default defaultText: String, _ help: String,
        set: @escaping @Sendable (inout ServerConfiguration, String) -> Void
    ) -> ServerSetting {
        value(name, variable, placeholder, default: defaultText, help, parse: { $0 }, set: set)
    }

    static func list(
        _ name: String, _ variable: String, _ placeholder: String, default defaultText: String, _ help: String,
        set: @escaping @Sendable (inout ServerConfiguration, [String]) -> Void
    ) -> ServerSetting {
        ServerSetting(name, variable, .list(placeholder: placeholder), default: defaultText, help) { config, values in
            set(&config, values)
        }
    }

    static func flag(
        _ name: String, _ variable: String, _ help: String, set: @escaping @Sendable (inout ServerConfiguration, Bool) -> Void
    ) -> ServerSetting {
        ServerSetting(name, variable, .flag, default: "off", help) { config, values in
            guard let text = values.last else { return }
            switch text.lowercased() {
            case "1", "true", "yes", "on": set(&config, true)
            case "0", "false", "no", "off": set(&config, false)
            default: throw ConfigurationError("\(variable)=\(text) is not a boolean (use 1 or 0)")
            }
        }
    }

    var flagSyntax: String {
        switch kind {
        case .value(let placeholder): "--\(name) \(placeholder)"
        case .list(let placeholder): "--\(name) \(placeholder)"
        case .flag: "--\(name)"
        }
    }

    var variableSyntax: String {
        switch kind {
        case .value: variable
        case .list: "\(variable) (comma-separated)"
        case .flag: "\(variable)=1"
        }
    }
}

extension ServerConfiguration {
    /// Every setting an operator can make, in the order `--help` and the README show them.
    public static let settings: [ServerSetting] = [
        .text("data-dir", "CHATTERD_DATA_DIR", "DIR", default: "`chatterd-data` (in the working directory)", "database, certificate and key") {
            $0.dataDirectory = $1
        },
        .text(
            "database", "CHATTERD_DATABASE_URL", "URL", default: "`sqlite:DATA_DIR/chatterd.sqlite`",
            "`sqlite:PATH`, or `postgres://user:password@host:5432/db` (`?sslmode=disable|prefer|require`) for a database several instances share (see docs/databases.md)"
        ) { $0.database = $1 },
        .text("bind", "CHATTERD_BIND", "ADDR", default: "`127.0.0.1`", "address to listen on (`0.0.0.0` for devices)") { $0.bindAddress = $1 },
        .value("port", "CHATTERD_PORT", "N", default: "`8443`", "port", parse: { Int($0) }) { $0.port = $1 },
        .list("host", "CHATTERD_HOSTS", "NAME", default: "—", "extra names/IPs the development certificate covers") {
            $0.hostnames = $1
        },
        .text("tls-cert", "CHATTERD_TLS_CERT", "FILE", default: "generated", "your own PEM certificate chain (with `--tls-key`)") {
            $0.tlsCertificatePath = $1
        },
        .text("tls-key", "CHATTERD_TLS_KEY", "FILE", default: "generated", "the PEM private key for `--tls-cert`") { $0.tlsKeyPath = $1 },
        .text(
            "second-factor-key", "CHATTERD_SECOND_FACTOR_KEY", "FILE", default: "generated in `DATA_DIR/second-factor.key`",
            "the key authenticator secrets are sealed under (64 hex digits); instances sharing a database share it"
        ) { $0.secondFactorKeyPath = $1 },
        .flag("http", "CHATTERD_HTTP", "plain HTTP, only behind a TLS-terminating proxy") { $0.plainHTTP = $1 },
        .list("google-client-id", "CHATTERD_GOOGLE_CLIENT_IDS", "ID", default: "none", "accepted Google OAuth client IDs") {
            $0.googleClientIDs = $1
        },
        .text(
            "google-jwks-url", "CHATTERD_GOOGLE_JWKS_URL", "URL", default: "`\(IdentityProvider.googleJWKSURL)`",
            "Google's signing keys (https; http only to this machine)"
        ) { $0.googleJWKSURL = $1 },
        .value("session-lifetime", "CHATTERD_SESSION_LIFETIME", "SECONDS", default: "`86400`", "chatterID lifetime", parse: { Double($0) }) {
            $0.sessionLifetime = $1
        },
        .flag("allow-anonymous-posting", "CHATTERD_ALLOW_ANONYMOUS_POSTING", "enable `POST /postchatt`") { $0.allowAnonymousPosting = $1 },
        .flag(
            "require-dpop", "CHATTERD_REQUIRE_DPOP",
            "native sessions only bound to a device key: sign-ins, refreshes and tokens need a DPoP proof (RFC 9449; course API unchanged)"
        ) { $0.requireDPoP = $1 },
        .flag("dpop-nonce", "CHATTERD_DPOP_NONCE", "DPoP proofs must carry the server's `DPoP-Nonce` (RFC 9449 §8)") { $0.dpopNonces = $1 },
        .list("app-attest-app-id", "CHATTERD_APP_ATTEST_APP_IDS", "TEAMID.BUNDLE", default: "none", "apps whose App Attest keys are accepted") {
            $0.appAttestAppIDs = $1
        },
        .flag("app-attest-development", "CHATTERD_APP_ATTEST_DEVELOPMENT", "accept App Attest keys of development builds too") {
            $0.appAttestDevelopment = $1
        },
        .list(
            "app-attest-sign-up", "CHATTERD_APP_ATTEST_SIGN_UP", "TEAMID.BUNDLE", default: "none",
            "new accounts only from installs of these apps that App Attest vouches for (each also an `--app-attest-app-id`)"
        ) { $0.appAttestSignUpAppIDs = $1 },
        .value("log-level", "CHATTERD_LOG_LEVEL", "LEVEL", default: "`info`", "`trace` … `critical`", parse: { Logger.Level(rawValue: $0) }) {
            $0.logLevel = $1
        },
        .value(
            "metrics", "CHATTERD_METRICS", "on|off", default: "`on`", "measure requests, sign-ins and the database for `/metrics`",
            parse: { ["on": true, "off": false][$0] }
        ) { $0.metricsEnabled = $1 },
        .text(
            "metrics-bind", "CHATTERD_METRICS_BIND", "HOST:PORT",
            default: "none (`/metrics` on the main listener, for requests from this machine only; none with `--http`)",
            "serve `/metrics` on a listener of its own, to whoever reaches it"
        ) { $0.metricsBind = $1 },
        .text(
            "metrics-token", "CHATTERD_METRICS_TOKEN", "TOKEN", default: "none",
            "let anyone presenting `Authorization: Bearer TOKEN` read `/metrics`"
        ) { $0.metricsToken = $1 },
        .value(
            "log-format", "CHATTERD_LOG_FORMAT", "text|json", default: "`text`", "`json`: one JSON object per line, for a log collector",
            parse: { LogFormat(rawValue: $0) }
        ) { $0.logFormat = $1 },
        .value(
            "google-nonce", "CHATTERD_GOOGLE_NONCE", "sha256|raw", default: "`sha256`", "how Google tokens carry the app's nonce",
            parse: { IdentityProvider.NonceForm(rawValue: $0) }
        ) { $0.googleNonce = $1 },
        .list("apple-client-id", "CHATTERD_APPLE_CLIENT_IDS", "ID", default: "none", "bundle ID / Services IDs for Sign in with Apple") {
            $0.appleClientIDs = $1
        },
        .text(
            "apple-jwks-url", "CHATTERD_APPLE_JWKS_URL", "URL", default: "`\(IdentityProvider.appleJWKSURL)`",
            "Apple's signing keys (https; http only to this machine)"
        ) { $0.appleJWKSURL = $1 },
        .text(
            "apple-team-id", "CHATTERD_APPLE_TEAM_ID", "ID", default: "none",
            "with the next two: Apple's tokens kept from the app's authorization code, revoked when the account is deleted"
        ) { $0.appleTeamID = $1 },
        .text("apple-key-id", "CHATTERD_APPLE_KEY_ID", "ID", default: "none", "the ID of the Sign in with Apple key") { $0.appleKeyID = $1 },
        .text("apple-private-key", "CHATTERD_APPLE_PRIVATE_KEY", "FILE", default: "none", "the key's `.p8` file from Apple") {
            $0.applePrivateKeyPath = $1
        },
        .text(
            "apple-auth-url", "CHATTERD_APPLE_AUTH_URL", "URL", default: "`\(IdentityProvider.appleAuthURL)`",
            "Apple's token service (https; http only to this machine)"
        ) { $0.appleAuthURL = $1 },
        .value("access-lifetime", "CHATTERD_ACCESS_LIFETIME", "SECONDS", default: "`900`", "native access tokens", parse: { Double($0) }) {
            $0.lifetimes.access = $1
        },
        .value(
            "session-idle", "CHATTERD_SESSION_IDLE", "SECONDS", default: "`2592000` (30 days)", "a native session ends when not refreshed this long",
            parse: { Double($0) }
        ) { $0.lifetimes.idle = $1 },
        .value(
            "session-absolute", "CHATTERD_SESSION_ABSOLUTE", "SECONDS", default: "`7776000` (90 days)", "and in any case this long after sign-in",
            parse: { Double($0) }
        ) { $0.lifetimes.absolute = $1 },
        .value("min-password-length", "CHATTERD_MIN_PASSWORD_LENGTH", "N", default: "`8`", "in characters", parse: { Int($0) }) {
            $0.minimumPasswordLength = $1
        },
        .value("bcrypt-cost", "CHATTERD_BCRYPT_COST", "N", default: "`12`", "password hashing cost (keep ≥ 12 in production)", parse: { UInt8($0) }) {
            $0.bcryptCost = $1
        },
        ServerSetting(
            "mail", "CHATTERD_MAIL", .value(placeholder: "log|URL"), default: "`log`",
            "`log` writes codes to the log and `DATA_DIR/outbox`; `smtp://user:pass@host:587` (STARTTLS) or `smtps://…:465`"
        ) { config, values in
            guard let text = values.last else { return }
            // Parsed here, so a bad URL stops chatterd at start; the error never repeats the URL (it holds a password).
            do { config.mail = try MailDelivery(text) } catch let error as MailError { throw ConfigurationError("--mail / CHATTERD_MAIL: \(error)") }
        },
        .text("mail-from", "CHATTERD_MAIL_FROM", "ADDRESS", default: "`Chatter <no-reply@localhost>`", "sender of code mails") { $0.mailFrom = $1 },
        .list(
            "trusted-proxy", "CHATTERD_TRUSTED_PROXIES", "CIDR", default: "none", "proxies whose forwarding headers name the client"
        ) { $0.trustedProxies = $1 },
        .value(
            "audit-retention", "CHATTERD_AUDIT_RETENTION", "DAYS", default: "`365`", "days the audit log keeps an event (`0`: every one)",
            parse: { Int($0) }
        ) { $0.auditRetentionDays = $1 },
        .value(
            "head-timeout", "CHATTERD_HEAD_TIMEOUT", "SECONDS", default: "`10`",
            "a new connection's first request head (TLS handshake included) must arrive within this", parse: { Double($0) }
        ) { $0.connections.headTimeout = $1 },
        .value(
            "body-timeout", "CHATTERD_BODY_TIMEOUT", "SECONDS", default: "`30`", "a request's body must arrive within this of its head",
            parse: { Double($0) }
        ) { $0.connections.bodyTimeout = $1 },
        .value(
            "idle-timeout", "CHATTERD_IDLE_TIMEOUT", "SECONDS", default: "`30`", "a kept-alive connection closes after this without a request",
            parse: { Double($0) }
        ) { $0.connections.idleTimeout = $1 },
        .value(
            "tls-handshake-timeout", "CHATTERD_TLS_HANDSHAKE_TIMEOUT", "SECONDS", default: "`10`", "a TLS handshake must end within this",
            parse: { Double($0) }
        ) { $0.connections.tlsHandshakeTimeout = $1 },
        .value(
            "max-connections", "CHATTERD_MAX_CONNECTIONS", "N", default: "the descriptor limit less 64",
            "connections open at once; more wait in the kernel's queue", parse: { Int($0) }
        ) { $0.connections.maximumConnections = $1 },
        .value(
            "ipv6-limit-prefix", "CHATTERD_IPV6_LIMIT_PREFIX", "BITS", default: "`64`",
            "IPv6 clients count against per-client limits by this prefix (one client usually holds a /64)", parse: { Int($0) }
        ) { $0.ipv6LimitPrefix = $1 },
        .text(
            "google-web-client-id", "CHATTERD_GOOGLE_WEB_CLIENT_ID", "ID", default: "none",
            "shows \"Sign in with Google\" on `/auth` (Google Identity Services)"
        ) { $0.googleWebClientID = $1 },
        .list(
            "web-frame-ancestor", "CHATTERD_WEB_FRAME_ANCESTORS", "ORIGIN", default: "none",
            "origins allowed to frame the web pages (an app's own origin); no framing otherwise"
        ) { $0.webFrameAncestors = $1 },
        .text(
            "passkey-rp-id", "CHATTERD_PASSKEY_RP_ID", "DOMAIN", default: "the first `--host`, else `localhost`",
            "passkeys' relying party ID: the domain (or a parent of it) the pages are served on"
        ) { $0.passkeyRPID = $1 },
        .list(
            "passkey-origin", "CHATTERD_PASSKEY_ORIGINS", "ORIGIN", default: "`https://RP_ID` (with the port unless 443) and each `--android-app`'s",
            "origins a passkey may be used from: the pages' origin, `android:apk-key-hash:…` for Android apps"
        ) { $0.passkeyOrigins = $1 },
        ServerSetting(
            "passkey-trust-anchors", "CHATTERD_PASSKEY_TRUST_ANCHORS", .value(placeholder: "PEM"), default: "none (Apple's WebAuthn root is built in)",
            "a PEM file of roots that authenticators' attestation chains may end in"
        ) { config, values in
            guard let path = values.last else { return }
            do {
                config.passkeyTrustAnchors = try TrustAnchors.certificates(pem: String(contentsOfFile: path, encoding: .utf8))
            } catch {
                throw ConfigurationError("--passkey-trust-anchors / CHATTERD_PASSKEY_TRUST_ANCHORS: \(path): \(error)")
            }
        },
        .value(
            "remember-device", "CHATTERD_REMEMBER_DEVICE", "DAYS", default: "`30`",
            "a device that passed two-step sign-in may skip it this long (until the password changes); `0`: never",
            parse: { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        ) { $0.rememberDeviceDays = $1 },
        .value(
            "admin-second-factor", "CHATTERD_ADMIN_SECOND_FACTOR", "on|off", default: "`on`",
            "operators need two-step sign-in to use `/admin`; `off` only for development", parse: { ["on": true, "off": false][$0] }
        ) { $0.adminRequiresSecondFactor = $1 },
        .value(
            "passkey-ceremony-limit", "CHATTERD_PASSKEY_CEREMONY_LIMIT", "N", default: "`60`",
            "passkey options one client network may ask for per 10 minutes (a /48 ten times that)", parse: { Int($0) }
        ) { $0.passkeyCeremoniesPerNetwork = $1 },
        .list(
            "apple-app-id", "CHATTERD_APPLE_APP_IDS", "TEAMID.BUNDLE", default: "none",
            "apps whose Associated Domains may use the passkeys (`/.well-known/apple-app-site-association`)"
        ) { $0.appleAppIDs = $1 },
        .list(
            "android-app", "CHATTERD_ANDROID_APPS", "PACKAGE:SHA256", default: "none",
            "Android apps that may use the passkeys (`/.well-known/assetlinks.json`; their origins are allowed)"
        ) { $0.androidApps = $1 },
        .flag(
            "passkey-require-attestation", "CHATTERD_PASSKEY_REQUIRE_ATTESTATION",
            "refuse a passkey without an attestation chain to a trust anchor (`none` and self attestation, so synced passkeys, are refused)"
        ) { $0.passkeyRequireTrustedAttestation = $1 },
    ]

    /// Applies the `CHATTERD_*` variables that are set, then the flags in `arguments` (`--name VALUE`,
    /// `--name=VALUE`, `--flag`): a flag wins over its variable, and a repeated list flag replaces the
    /// variable's list. Invalid values and unknown flags are reported, never ignored.
    public mutating func apply(environment: [String: String], arguments: [String] = []) throws {
        var given: [String: [String]] = [:]
        for setting in Self.settings {
            guard let text = environment[setting.variable], !text.isEmpty else { continue }
            if case .list = setting.kind { given[setting.name] = Self.list(text) } else { given[setting.name] = [text] }
        }
        var fromArguments: [String: [String]] = [:]
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--") else { throw ConfigurationError("unexpected argument \(argument)") }
            let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1)
            let name = String(parts.first ?? "")
            guard let setting = Self.settings.first(where: { $0.name == name }) else { throw ConfigurationError("unknown option --\(name)") }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else if case .flag = setting.kind {
                value = "1"
            } else {
                guard let next = remaining.popFirst() else { throw ConfigurationError("--\(name) needs a value") }
                value = next
            }
            fromArguments[name, default: []].append(value)
        }
        given.merge(fromArguments) { _, flag in flag }
        for setting in Self.settings {
            if let values = given[setting.name] { try setting.apply(&self, values) }
        }
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw ConfigurationError("give both --tls-cert and --tls-key (CHATTERD_TLS_CERT and CHATTERD_TLS_KEY), or neither")
        }
        if plainHTTP {
            transport = .http
        } else if let tlsCertificatePath, let tlsKeyPath {
            transport = .tls(certificatePath: tlsCertificatePath, keyPath: tlsKeyPath)
        }
    }

    /// `chatterd serve --help`'s list of settings.
    public static var settingsHelp: String {
        settings.map { setting in
            let repeatable = if case .list = setting.kind { ", repeatable" } else { "" }
            return
                "\(setting.flagSyntax)  [\(setting.variableSyntax)\(repeatable); default \(setting.defaultText.replacingOccurrences(of: "`", with: ""))]\n    "
                + setting.help.replacingOccurrences(of: "`", with: "")
        }.joined(separator: "\n")
    }

    /// The README's configuration table.
    public static var settingsTable: String {
        let rows = settings.map { setting in
            let (flag, variable) =
                switch setting.kind {
                case .value: ("`\(setting.flagSyntax)`", "`\(setting.variable)`")
                case .list: ("`\(setting.flagSyntax)` (repeat)", "`\(setting.variable)` (comma-separated)")
                case .flag: ("`\(setting.flagSyntax)`", "`\(setting.variable)=1`")
                }
            return [flag, variable, setting.defaultText, setting.help].map { $0.replacingOccurrences(of: "|", with: "\\|") }
                .joined(separator: " | ")
        }
        return (["| flag | variable | default | meaning |", "|---|---|---|---|"] + rows.map { "| \($0) |" }).joined(separator: "\n")
    }
}
