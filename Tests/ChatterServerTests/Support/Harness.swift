import ChatterTestSupport
import ChatterWire
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import Testing
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A live chatterd on loopback (`LiveService`, stopped gracefully) over a real SQLite file (or, with
/// `backend: .postgres`, a PostgreSQL schema of its own), with Google's key endpoint replaced by a local
/// JWKS listener serving the test issuer's key.
struct Harness: Sendable {
    static let appleClientID = "com.example.chatter"
    static let userAgent = "ChatterTests/1.0"
    /// The origin passkey ceremonies come from (`SoftwareAuthenticator(origin:)`); the RP ID is `localhost`.
    static let passkeyOrigin = "https://localhost:8443"

    let clock: TestClock
    let issuer: TestIssuer
    let appleIssuer: TestIssuer
    let store: any ChatterStore
    /// The SQLite file, for tests that read it directly (SQLite runs only).
    let databasePath: String
    let services: ServerAssembly
    let mail: CapturingMail
    let client: LiveClient

    static func run(
        in directory: String? = nil, clock: TestClock = TestClock(), issuer: TestIssuer? = nil,
        appleKeys: (any JWKSSource)? = nil, mailTransport: (any MailTransport)? = nil, hasher: PasswordHasher? = nil,
        backend: StoreBackend = .sqlite, metrics: PrometheusCollectorRegistry? = nil, appAttestRoot: Certificate? = nil,
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in }, _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        let issuer = try issuer ?? TestIssuer()
        if let directory {
            try await backend.withLocation(in: directory) {
                try await run(directory, $0, clock, issuer, appleKeys, mailTransport, hasher, metrics, appAttestRoot, configure, body)
            }
        } else {
            try await withTemporaryDirectory { directory in
                try await backend.withLocation(in: directory) {
                    try await run(directory, $0, clock, issuer, appleKeys, mailTransport, hasher, metrics, appAttestRoot, configure, body)
                }
            }
        }
    }

    /// The registry chatterd's metrics go to in this test process: swift-metrics is bootstrapped once, on first
    /// use, so the counters of every test that runs afterwards land here too (tests compare before and after).
    static let metrics: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    private static func run(
        _ directory: String, _ location: DatabaseLocation, _ clock: TestClock, _ issuer: TestIssuer, _ appleKeys: (any JWKSSource)?,
        _ mailTransport: (any MailTransport)?, _ hasher: PasswordHasher?, _ metrics: PrometheusCollectorRegistry?, _ appAttestRoot: Certificate?,
        _ configure: @Sendable (inout ServerConfiguration) -> Void,
        _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        let appleIssuer = try TestIssuer(kid: "apple-test-key")
        let jwks = JWKSServer(issuers: [issuer, appleIssuer])
        try await jwks.run { url in
            var config = ServerConfiguration()
            config.dataDirectory = directory
            config.port = 0
            config.googleClientIDs = [TestIssuer.clientID]
            config.appleClientIDs = [Self.appleClientID]
            config.bcryptCost = 4  // the cost only changes speed; PasswordTests checks the production default
            config.passkeyRPID = "localhost"
            config.passkeyOrigins = [Self.passkeyOrigin]
            configure(&config)
            var logger = Logger(label: "chatterd-test")
            logger.logLevel = .warning
            let store = try await location.open(logger: logger)
            let mail = CapturingMail()
            let services = ServerAssembly(
                configuration: config, store: store, mail: mailTransport ?? mail, googleKeys: HTTPJWKSSource(url: url),
                appleKeys: appleKeys ?? HTTPJWKSSource(url: url), hasher: hasher, appleSigningKey: try config.appleSigningKey(), appAttestRoot: appAttestRoot,
                now: clock.function, logger: logger)
            try await LiveService.run(
                logger: logger,
                { onServerRunning in
                    ChatterApp.application(configuration: config, services: services, metrics: metrics, onServerRunning: onServerRunning, logger: logger)
                }
            ) { port in
                try await LiveClient.with(baseURL: "http://127.0.0.1:\(port)") { client in
                    try await body(
                        Harness(
                            clock: clock, issuer: issuer, appleIssuer: appleIssuer, store: store, databasePath: location.sqlitePath ?? "",
                            services: services, mail: mail, client: client))
                }
            }
        }
    }

    // MARK: requests

    func post(_ path: String, json: String, bearer: String? = nil, headers extra: HTTPFields = [:]) async throws -> LiveResponse {
        var headers: HTTPFields = [.contentType: "application/json", .userAgent: Self.userAgent]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        headers.append(contentsOf: extra)
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    func post(_ path: String, _ value: some Encodable, bearer: String? = nil) async throws -> LiveResponse {
        try await post(path, json: String(decoding: try JSONEncoder().encode(value), as: UTF8.self), bearer: bearer)
    }

    func get(_ path: String, bearer: String? = nil, headers extra: HTTPFields = [:]) async throws -> LiveResponse {
        var headers = extra
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    /// Opens a web-session link the way an app's own web view does (with `WebSessionResponse.appHeader`).
    func openInApp(_ link: String, headers extra: HTTPFields = [:]) async throws -> LiveResponse {
        var headers = extra
        headers[WebSessionRoutes.appHeader] = WebSessionResponse.appHeaderValue
        return try await get(link, headers: headers)
    }

    func patch(_ path: String, _ value: some Encodable, bearer: String? = nil) async throws -> LiveResponse {
        var headers: HTTPFields = [.contentType: "application/json", .userAgent: Self.userAgent]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: path, method: .patch, headers: headers, body: ByteBuffer(bytes: try JSONEncoder().encode(value)))
    }

    func delete(_ path: String, bearer: String? = nil) async throws -> LiveResponse {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: path, method: .delete, headers: headers)
    }

    /// Signs in through the native Google route and returns the session.
    func nativeSignIn(subject: String = "1000001", name: String? = "Ada Lovelace", email: String? = nil) async throws -> SessionResponse {
        var claims = TestIssuer.claims(subject: subject, name: name, now: clock.now)
        if let email { claims["email"] = email }
        let response = try await post(NativePath.google, GoogleSignInRequest(idToken: try issuer.sign(claims), clientID: TestIssuer.clientID))
        try #require(response.status == .ok, "google sign-in failed: \(String(buffer: response.body))")
        return try decode(SessionResponse.self, response)
    }

    /// Asks for a code for `email` and returns the one the mail transport received.
    func requestCode(_ email: String) async throws -> String {
        let response = try await post(NativePath.emailCode, EmailCodeRequest(email: email))
        try #require(response.status == .accepted, "code request failed: \(String(buffer: response.body))")
        return try #require(mail.lastCode(to: email.lowercased()))
    }

    func error(_ response: LiveResponse) throws -> ErrorBody {
        try decode(ErrorBody.self, response)
    }

    /// Signs in through `/adduser` with a fresh token for `subject`.
    func signIn(subject: String = "1000001", name: String? = "Ada Lovelace") async throws -> AddUserResponse {
        let token = try issuer.sign(TestIssuer.claims(subject: subject, name: name, now: clock.now))
        let response = try await post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
        try #require(response.status == .ok, "adduser failed: \(String(buffer: response.body))")
        return try decode(AddUserResponse.self, response)
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: LiveResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    func timeline() async throws -> [ChattRow] {
        try decode([ChattRow].self, try await get("/getchatts"))
    }

    /// Row counts of every table, to show a refused request changed nothing.
    func counts() async throws -> [Int] {
        [try await store.userCount(), try await store.sessionCount(), try await store.chattCount()]
    }
}

extension Harness {
    /// Sends `count` requests at once, each on its own connection when the pool has one free, and
    /// returns every answer.
    func parallel(_ count: Int, _ request: @escaping @Sendable (Int) async throws -> LiveResponse) async throws -> [LiveResponse] {
        try await withThrowingTaskGroup(of: LiveResponse.self) { group in
            for index in 0..<count { group.addTask { try await request(index) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}

extension [LiveResponse] {
    func count(_ status: HTTPResponse.Status) -> Int { filter { $0.status == status }.count }
}

extension DatabaseLocation {
    var sqlitePath: String? {
        if case .sqlite(let path) = self { path } else { nil }
    }
}
