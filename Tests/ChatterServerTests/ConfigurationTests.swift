import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

@Suite struct ConfigurationTests {
    @Test func defaultsServeHTTPSOnLoopback() {
        let config = ServerConfiguration()
        #expect(config.transport == .developmentTLS)
        #expect(config.bindAddress == "127.0.0.1")
        #expect(config.port == 8443)
        #expect(config.sessionLifetime == 86400)
        #expect(!config.allowAnonymousPosting)
    }

    @Test func environmentSetsEveryField() throws {
        var config = ServerConfiguration()
        try config.apply(environment: [
            "CHATTERD_DATA_DIR": "/var/lib/chatterd", "CHATTERD_BIND": "0.0.0.0", "CHATTERD_PORT": "9443",
            "CHATTERD_HOSTS": "chatter.local, 10.0.0.2", "CHATTERD_GOOGLE_CLIENT_IDS": "a.apps.googleusercontent.com,b",
            "CHATTERD_GOOGLE_JWKS_URL": "http://127.0.0.1/certs", "CHATTERD_SESSION_LIFETIME": "3600",
            "CHATTERD_ALLOW_ANONYMOUS_POSTING": "1", "CHATTERD_LOG_LEVEL": "debug",
            "CHATTERD_TLS_CERT": "/etc/c.pem", "CHATTERD_TLS_KEY": "/etc/k.pem",
        ])
        #expect(config.databasePath == "/var/lib/chatterd/chatterd.sqlite")
        #expect(config.bindAddress == "0.0.0.0")
        #expect(config.port == 9443)
        #expect(config.hostnames == ["chatter.local", "10.0.0.2"])
        #expect(config.googleClientIDs == ["a.apps.googleusercontent.com", "b"])
        #expect(config.googleJWKSURL == "http://127.0.0.1/certs")
        #expect(config.sessionLifetime == 3600)
        #expect(config.allowAnonymousPosting)
        #expect(config.logLevel == .debug)
        #expect(config.transport == .tls(certificatePath: "/etc/c.pem", keyPath: "/etc/k.pem"))
        try config.apply(environment: ["CHATTERD_HTTP": "true"])
        #expect(config.transport == .http)
    }

    @Test(arguments: [
        ["CHATTERD_PORT": "eighty"], ["CHATTERD_HTTP": "maybe"], ["CHATTERD_TLS_CERT": "/only/cert.pem"],
        ["CHATTERD_LOG_LEVEL": "loud"],
    ])
    func invalidValuesAreReported(environment: [String: String]) {
        var config = ServerConfiguration()
        #expect(throws: ConfigurationError.self) { try config.apply(environment: environment) }
    }

    @Test func flagsWinOverVariablesAndListsRepeat() throws {
        var config = ServerConfiguration()
        try config.apply(
            environment: ["CHATTERD_PORT": "9443", "CHATTERD_TRUSTED_PROXIES": "10.0.0.1", "CHATTERD_BIND": "0.0.0.0"],
            arguments: ["--port", "9000", "--trusted-proxy", "127.0.0.1", "--trusted-proxy=::1", "--http", "--database=sqlite:/tmp/x.sqlite"])
        #expect(config.port == 9000)
        #expect(config.bindAddress == "0.0.0.0", "a variable no flag overrides still applies")
        #expect(config.trustedProxies == ["127.0.0.1", "::1"])
        #expect(config.transport == .http)
        #expect(try config.databaseLocation() == .sqlite(path: "/tmp/x.sqlite"))
        config = ServerConfiguration()
        try config.apply(environment: ["CHATTERD_TLS_CERT": "/etc/c.pem"], arguments: ["--tls-key", "/etc/k.pem"])
        #expect(config.transport == .tls(certificatePath: "/etc/c.pem", keyPath: "/etc/k.pem"))
    }

    @Test(arguments: [["--nope"], ["--port"], ["--port", "eighty"], ["stray"], ["--http=maybe"], ["--google-nonce", "md5"]])
    func badArgumentsAreReported(arguments: [String]) {
        var config = ServerConfiguration()
        #expect(throws: ConfigurationError.self) { try config.apply(environment: [:], arguments: arguments) }
    }

    /// The README's table is the settings list itself, so neither can drift from the other.
    /// The defaults `--help` and the README show are the ones `ServerConfiguration` declares: each shown value,
    /// applied to a default configuration, changes nothing (and so does an empty list, and a flag's "off").
    /// A default written as words ("generated", "none") is a description, not a value, and is not applied.
    @Test(arguments: ServerConfiguration.settings.map(\.name))
    func theShownDefaultIsTheDeclaredOne(setting name: String) throws {
        let setting = try #require(ServerConfiguration.settings.first { $0.name == name })
        let shown: [String]?
        switch setting.kind {
        case .flag: shown = setting.defaultText == "off" ? ["0"] : nil
        case .list: shown = setting.defaultText == "none" || setting.defaultText == "—" ? [] : nil
        case .value:
            // A default that begins with a `literal` shows a value; the database's names a path inside the data
            // directory, a template rather than a value.
            let parts = setting.defaultText.split(separator: "`", omittingEmptySubsequences: false)
            shown = setting.defaultText.hasPrefix("`") && name != "database" ? [String(parts[1])] : nil
        }
        guard let shown else { return }
        var applied = ServerConfiguration()
        try setting.apply(&applied, shown)
        var before = ""
        var after = ""
        dump(ServerConfiguration(), to: &before)
        dump(applied, to: &after)
        #expect(before == after, "--\(name)'s shown default \(shown) is not ServerConfiguration's")
    }

    /// `--mail` is read when chatterd starts: a bad URL stops it then, without repeating the URL's password.
    @Test func theMailSettingIsParsedAtStartAndNeverEchoesItsPassword() throws {
        var config = ServerConfiguration()
        try config.apply(environment: [:], arguments: ["--mail", "smtps://mailer:s3cret%40pw@mail.example.com:465"])
        guard case .smtp(let smtp) = config.mail else {
            Issue.record("not SMTP: \(config.mail)")
            return
        }
        #expect(smtp.host == "mail.example.com" && smtp.port == 465 && smtp.security == .implicitTLS)
        #expect(smtp.credentials?.password == "s3cret@pw")
        let error = #expect(throws: ConfigurationError.self) {
            var bad = ServerConfiguration()
            try bad.apply(environment: ["CHATTERD_MAIL": "ftp://mailer:hunter2@mail.example.com"])
        }
        #expect(error?.description.contains("hunter2") == false)
        #expect(error?.description.contains("--mail") == true)
    }

    /// The passkeys' relying party: derived from the host names and port, or set; trust anchors are read at
    /// start, and a file that is not PEM certificates stops chatterd.
    /// `--http` on localhost is a browser's secure context: the default origin follows the listener there, and
    /// settings under which no browser can use a passkey are named at start (issue 44).
    @Test func passkeysFollowThePlainHTTPListenerAndImpossibleSettingsAreNamed() throws {
        var plain = ServerConfiguration()
        try plain.apply(environment: [:], arguments: ["--http", "--port", "8080"])
        #expect(plain.relyingParty.origins == ["http://localhost:8080"])
        #expect(plain.passkeyProblems.isEmpty, "\(plain.passkeyProblems)")
        #expect(ServerConfiguration().passkeyProblems.isEmpty)
        var proxied = ServerConfiguration()
        try proxied.apply(environment: [:], arguments: ["--http", "--host", "chatter.example", "--port", "443"])
        #expect(proxied.relyingParty.origins == ["https://chatter.example"], "plain HTTP elsewhere is a TLS proxy's back end")
        #expect(proxied.passkeyProblems.isEmpty)
        var address = ServerConfiguration()
        try address.apply(environment: [:], arguments: ["--passkey-rp-id", "192.168.1.20"])
        #expect(address.passkeyProblems.contains { $0.contains("is an IP address") })
        var elsewhere = ServerConfiguration()
        try elsewhere.apply(
            environment: ["CHATTERD_PASSKEY_ORIGINS": "https://other.example,http://chatter.example"], arguments: ["--passkey-rp-id", "chatter.example"])
        #expect(elsewhere.passkeyProblems.contains { $0.contains("https://other.example is not on the relying party ID") })
        #expect(elsewhere.passkeyProblems.contains { $0.contains("http://chatter.example is plain http") })
        #expect(elsewhere.passkeyProblems.count == 2)
    }

    @Test func thePasskeyRelyingPartyIsDerivedOrSetAndItsAnchorsReadAtStart() async throws {
        var derived = ServerConfiguration()
        try derived.apply(environment: [:], arguments: ["--host", "chatter.example", "--port", "443"])
        #expect(derived.relyingParty.id == "chatter.example")
        #expect(derived.relyingParty.origins == ["https://chatter.example"])
        #expect(ServerConfiguration().relyingParty.origins == ["https://localhost:8443"])
        var set = ServerConfiguration()
        try set.apply(
            environment: ["CHATTERD_PASSKEY_ORIGINS": "https://chatter.example,android:apk-key-hash:abc"], arguments: ["--passkey-rp-id", "example"])
        #expect(set.relyingParty.id == "example")
        #expect(set.relyingParty.origins == ["https://chatter.example", "android:apk-key-hash:abc"])
        try await withTemporaryDirectory { directory in
            let path = directory + "/anchors.pem"
            try TrustAnchors.appleWebAuthnRootPEM.write(toFile: path, atomically: true, encoding: .utf8)
            var anchors = ServerConfiguration()
            try anchors.apply(environment: [:], arguments: ["--passkey-trust-anchors", path])
            #expect(anchors.relyingParty.trustAnchors == [TrustAnchors.appleWebAuthnRoot])
            try "not a certificate".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: ConfigurationError.self) {
                var bad = ServerConfiguration()
                try bad.apply(environment: [:], arguments: ["--passkey-trust-anchors", path])
            }
            #expect(throws: ConfigurationError.self) {
                var missing = ServerConfiguration()
                try missing.apply(environment: [:], arguments: ["--passkey-trust-anchors", directory + "/absent.pem"])
            }
        }
    }

    @Test func theReadmeTableIsTheSettingsList() throws {
        let readme = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let table = ServerConfiguration.settingsTable
        if !text.contains(table + "\n") {
            Issue.record("the README's configuration table differs from ServerConfiguration.settings; it should read:\n<<<\n\(table)\n>>>")
        }
        #expect(Set(ServerConfiguration.settings.map(\.variable)).count == ServerConfiguration.settings.count)
    }

    @Test func validationRefusesNonsense() {
        var config = ServerConfiguration()
        config.port = 70000
        #expect(throws: ConfigurationError.self) { try config.validate() }
        config = ServerConfiguration()
        config.sessionLifetime = 5
        #expect(throws: ConfigurationError.self) { try config.validate() }
    }
}
