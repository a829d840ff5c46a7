import ChatterKit
import ChatterServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// A live chatterd on loopback, as the server tests start it (HummingbirdTesting's live mode, a real
/// SQLite file in a temporary directory, Google's keys from a local JWKS listener), with the native API
/// stand-in mounted beside the real routes until `main` serves them. Clients talk to it over real HTTP.
struct LiveServer: Sendable {
    let clock: TestClock
    let issuer: TestIssuer
    let native: NativeStandIn
    let baseURL: URL
    let directory: String
    /// With `tls`: the development certificate chatterd generated, and its public-key pin.
    let certificatePath: String?
    let pin: String?

    static func run(
        clock: TestClock = TestClock(), accessLifetime: Int = 300, sessionLifetime: Double = 3600, tls: Bool = false,
        _ body: @Sendable (LiveServer) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { try await start($0, clock, accessLifetime, sessionLifetime, tls, body) }
    }

    private static func start(
        _ directory: String, _ clock: TestClock, _ accessLifetime: Int, _ sessionLifetime: Double, _ tls: Bool,
        _ body: @Sendable (LiveServer) async throws -> Void
    ) async throws {
        let issuer = try TestIssuer()
        let jwks = JWKSServer(issuers: [issuer])
        try await jwks.run { url in
            var config = ServerConfiguration()
            config.dataDirectory = directory
            config.port = 0
            config.googleClientIDs = [TestIssuer.clientID]
            config.sessionLifetime = sessionLifetime
            config.transport = tls ? .developmentTLS : .http
            let store = try await SQLiteStore.open(path: config.databasePath)
            let keys = JWKSCache(source: HTTPJWKSSource(url: url), algorithms: ["RS256"], now: clock.function)
            let google = IDTokenVerifier(provider: .google(clientIDs: config.googleClientIDs), keys: keys, now: clock.function)
            let router = ChatterApp.router(configuration: config, parts: .init(store: store, google: google, now: clock.function))
            let native = NativeStandIn(store: store, now: clock.function, accessLifetime: accessLifetime)
            native.register(on: router)
            var logger = Logger(label: "chatterd-kit-test")
            logger.logLevel = .warning
            let transport = try PreparedTransport.prepare(config)
            let app = Application(
                router: router, server: transport.server, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let certificate = tls ? directory + "/chatterd.crt" : nil
                let pin = try certificate.map { try PublicKeyPin.sha256(ofCertificatePEM: String(contentsOfFile: $0, encoding: .utf8)) }
                let server = LiveServer(
                    clock: clock, issuer: issuer, native: native, baseURL: URL(string: "\(transport.scheme)://127.0.0.1:\(port)")!,
                    directory: directory, certificatePath: certificate, pin: pin)
                try await body(server)
            }
            try await store.close()
        }
    }

    /// A Google ID token for `subject`, valid now on the server's clock.
    func googleToken(subject: String = "1000001", name: String? = "Ada Lovelace") throws -> String {
        try issuer.sign(TestIssuer.claims(subject: subject, name: name, now: clock.now))
    }

    func api(transport: (any HTTPTransport)? = nil) -> ChatterAPI {
        ChatterAPI(baseURL: baseURL, transport: transport ?? URLSessionTransport())
    }

    /// A client on `store` whose clock is the server's unless given.
    func client(
        store: any SecretStore = MemoryStore(), transport: (any HTTPTransport)? = nil, now: (@Sendable () -> Date)? = nil
    ) -> ChatterClient {
        ChatterClient(api: api(transport: transport), store: store, now: now ?? clock.function)
    }
}

/// Counts requests by path on their way to a real transport.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let counts = Mutex<[String: Int]>([:])

    init(_ inner: any HTTPTransport = URLSessionTransport()) {
        self.inner = inner
    }

    func count(_ path: String) -> Int { counts.withLock { $0[path, default: 0] } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        counts.withLock { $0[request.url.path, default: 0] += 1 }
        return try await inner.send(request)
    }
}

/// A transport that fails every request with a connection error while `down` is set.
final class SwitchableTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let state = Mutex(false)

    init(_ inner: any HTTPTransport = URLSessionTransport()) {
        self.inner = inner
    }

    func setDown(_ down: Bool) { state.withLock { $0 = down } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if state.withLock({ $0 }) { throw URLError(.cannotConnectToHost) }
        return try await inner.send(request)
    }
}
