import ChatterKit
import ChatterTestSupport
import Crypto
import Foundation
import Hummingbird
import Logging
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A live chatterd on loopback, as the server tests start it (`LiveService`, stopped gracefully), a real
/// SQLite file in a temporary directory, Google's and Apple's keys from local JWKS listeners, mail caught
/// in memory. Clients talk to it over real HTTP (or HTTPS with its development certificate).
struct LiveServer: Sendable {
    static let appleClientID = "com.example.chatter"
    /// The origin passkeys are made for (`SoftwareAuthenticator(origin:)`); the RP ID is `localhost`.
    static let passkeyOrigin = "https://localhost:8443"

    let clock: TestClock
    let issuer: TestIssuer
    let appleIssuer: TestIssuer
    /// Apple's key endpoint, which a test can make fail.
    let appleKeys: JWKSServer
    let store: SQLiteStore
    let mail: CapturingMail
    let baseURL: URL
    /// With `tls`: the development certificate chatterd generated, and its public-key pin.
    let certificatePath: String?
    let pin: String?
    /// Requests that reached chatterd's routes.
    let requests: RequestCounter

    static func run(
        clock: TestClock = TestClock(), accessLifetime: Double = 300, sessionLifetime: Double = 3600, tls: Bool = false,
        courseOnly: Bool = false, requireDPoP: Bool = false, dpopNonces: Bool = false, appAttest: SimulatedAppAttest? = nil,
        appAttestSignUp: Bool = false,
        serverCertificate: (certificatePath: String, keyPath: String)? = nil,
        appleTokenService: (service: AppleTokenService, url: String)? = nil, _ body: @Sendable (LiveServer) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            let issuer = try TestIssuer()
            let appleIssuer = try TestIssuer(kid: "apple-test-key")
            let google = JWKSServer(issuers: [issuer])
            let apple = JWKSServer(issuers: [appleIssuer])
            try await google.run { googleURL in
                try await apple.run { appleURL in
                    var config = ServerConfiguration()
                    config.dataDirectory = directory
                    config.port = 0
                    config.googleClientIDs = [TestIssuer.clientID]
                    config.appleClientIDs = [appleClientID]
                    config.sessionLifetime = sessionLifetime
                    config.lifetimes.access = accessLifetime
                    config.bcryptCost = 4  // speed only; the server's own tests check the production cost
                    config.passkeyRPID = "localhost"
                    config.passkeyOrigins = [passkeyOrigin]
                    config.transport = tls ? .developmentTLS : .http
                    config.requireDPoP = requireDPoP
                    config.dpopNonces = dpopNonces
                    config.appAttestAppIDs = appAttest.map { [$0.appID] } ?? []
                    config.appAttestSignUpAppIDs = appAttestSignUp ? config.appAttestAppIDs : []
                    if let serverCertificate { config.transport = .tls(certificatePath: serverCertificate.certificatePath, keyPath: serverCertificate.keyPath) }
                    // With Apple's token service standing in: chatterd holds the team's key, as an operator's `.p8`.
                    if let (service, url) = appleTokenService {
                        config.appleTeamID = service.teamID
                        config.appleKeyID = service.keyID
                        config.applePrivateKeyPath = directory + "/AuthKey.p8"
                        config.appleAuthURL = url
                        try service.key.pemRepresentation.write(toFile: directory + "/AuthKey.p8", atomically: true, encoding: .utf8)
                        service.use(signer: { try appleIssuer.sign($0) }, now: clock.function)
                    }
                    var logger = Logger(label: "chatterd-kit-test")
                    logger.logLevel = .warning
                    let store = try await SQLiteStore.open(path: config.databasePath, logger: logger)
                    let mail = CapturingMail()
                    let services = ServerAssembly(
                        configuration: config, store: store, mail: mail, googleKeys: HTTPJWKSSource(url: googleURL),
                        appleKeys: HTTPJWKSSource(url: appleURL), appleSigningKey: try config.appleSigningKey(), appAttestRoot: appAttest?.root,
                        now: clock.function, logger: logger)
                    // The store must be closed however the test ends: SQLiteNIO asserts on an open connection.
                    do {
                        let transport = try PreparedTransport.prepare(config)
                        // chatterd's routes without its StoreService: the test owns the store and closes it below,
                        // and a periodic purge racing the shutdown can only make a test flaky.
                        let router = courseOnly ? courseRouter(services) : ChatterApp.router(configuration: config, services: services)
                        let requests = RequestCounter()
                        try await LiveService.run(
                            logger: logger,
                            { onServerRunning in
                                Application(
                                    responder: CountingResponder(inner: router.buildResponder(), counter: requests), server: transport.server,
                                    configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning, logger: logger)
                            }
                        ) { port in
                            let certificate = tls ? directory + "/chatterd.crt" : serverCertificate?.certificatePath
                            let pin = try certificate.map { try PublicKeyPin.sha256(ofCertificatePEM: String(contentsOfFile: $0, encoding: .utf8)) }
                            try await body(
                                LiveServer(
                                    clock: clock, issuer: issuer, appleIssuer: appleIssuer, appleKeys: apple, store: store, mail: mail,
                                    baseURL: URL(string: "\(transport.scheme)://127.0.0.1:\(port)")!, certificatePath: certificate, pin: pin,
                                    requests: requests))
                        }
                    } catch {
                        // Not in this (maybe cancelled) task: closing must happen whatever the test did.
                        await Task { try? await store.close() }.value
                        throw error
                    }
                    try await store.close()
                }
            }
        }
    }

    /// Only the course API, as the course's own chatterd serves it: no /v1 routes at all.
    static func courseRouter(_ services: ServerAssembly) -> Router<ChatterRequestContext> {
        let router = Router(context: ChatterRequestContext.self)
        router.add(middleware: ErrorMiddleware(page: nil))
        CourseRoutes(
            timeline: services.timeline, sessions: services.sessions, providers: services.providers, signIn: services.signIn,
            allowAnonymousPosting: false
        ).register(on: router)
        return router
    }

    /// A Google ID token for `subject`, valid now on the server's clock.
    func googleToken(subject: String = "1000001", name: String? = "Ada Lovelace") throws -> String {
        try issuer.sign(TestIssuer.claims(subject: subject, name: name, now: clock.now))
    }

    /// An Apple identity token carrying SHA-256 of `nonce`, as Apple issues it.
    func appleToken(subject: String, nonce: String, email: String? = nil) throws -> String {
        var claims: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": Self.appleClientID, "sub": subject,
            "iat": Int(clock.now.timeIntervalSince1970), "exp": Int(clock.now.timeIntervalSince1970) + 600,
            "nonce": SHA256.hash(data: Array(nonce.utf8)).map { String(format: "%02x", $0) }.joined(),
        ]
        if let email {
            claims["email"] = email
            claims["email_verified"] = "true"
        }
        return try appleIssuer.sign(claims)
    }

    func api(transport: (any HTTPTransport)? = nil) -> ChatterAPI {
        ChatterAPI(baseURL: baseURL, transport: transport ?? URLSessionTransport())
    }

    /// A client on `store` whose clock is the server's unless given; with `deviceKeys`, its sessions are bound to
    /// the key they make.
    func client(
        store: any SecretStore = MemoryStore(), transport: (any HTTPTransport)? = nil, coordinator: (any SessionCoordinator)? = nil,
        deviceKeys: (any DPoPKeyFactory)? = nil, appAttest: (any AppAttestProvider)? = nil, now: (@Sendable () -> Date)? = nil
    ) -> ChatterClient {
        ChatterClient(
            api: api(transport: transport), store: store, coordinator: coordinator, deviceKeys: deviceKeys, appAttest: appAttest,
            now: now ?? clock.function)
    }
}

/// Counts requests by path on their way to a real transport.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let counts = Mutex<[String: Int]>([:])
    private let answers = Mutex<[String: Int]>([:])

    init(_ inner: any HTTPTransport = URLSessionTransport()) {
        self.inner = inner
    }

    /// Requests sent to `path`.
    func count(_ path: String) -> Int { counts.withLock { $0[path, default: 0] } }
    /// Answers received from `path`.
    func answered(_ path: String) -> Int { answers.withLock { $0[path, default: 0] } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        counts.withLock { $0[request.url.path, default: 0] += 1 }
        let response = try await inner.send(request)
        answers.withLock { $0[request.url.path, default: 0] += 1 }
        return response
    }
}

/// A transport that fails every request (or those to one path) with a connection error while `down` is set.
final class SwitchableTransport: HTTPTransport {
    let inner: any HTTPTransport
    /// The one path that fails while down, or nil for every request.
    let path: String?
    private let state = Mutex(false)

    init(_ inner: any HTTPTransport = URLSessionTransport(), only path: String? = nil) {
        self.inner = inner
        self.path = path
    }

    func setDown(_ down: Bool) { state.withLock { $0 = down } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if state.withLock({ $0 }), path == nil || request.url.path == path { throw URLError(.cannotConnectToHost) }
        return try await inner.send(request)
    }
}

final class RequestCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// Counts the requests that reach the routes, to show that a refused connection sent none.
struct CountingResponder<Inner: HTTPResponder>: HTTPResponder {
    let inner: Inner
    let counter: RequestCounter

    func respond(to request: Request, context: Inner.Context) async throws -> Response {
        counter.increment()
        return try await inner.respond(to: request, context: context)
    }
}
