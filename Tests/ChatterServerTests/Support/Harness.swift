import ChatterWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import ChatterServer

/// A live chatterd on loopback (HummingbirdTesting's live mode) over a real SQLite file, with Google's key
/// endpoint replaced by a local JWKS listener serving the test issuer's key.
struct Harness: Sendable {
    let clock: TestClock
    let issuer: TestIssuer
    let store: SQLiteStore
    let client: any TestClientProtocol

    static func run(
        in directory: String? = nil, clock: TestClock = TestClock(), issuer: TestIssuer? = nil,
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        let issuer = try issuer ?? TestIssuer()
        if let directory {
            try await run(directory, clock, issuer, configure, body)
        } else {
            try await withTemporaryDirectory { try await run($0, clock, issuer, configure, body) }
        }
    }

    private static func run(
        _ directory: String, _ clock: TestClock, _ issuer: TestIssuer,
        _ configure: @Sendable (inout ServerConfiguration) -> Void, _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        let jwks = JWKSServer(issuers: [issuer])
        try await jwks.run { url in
            var config = ServerConfiguration()
            config.dataDirectory = directory
            config.port = 0
            config.googleClientIDs = [TestIssuer.clientID]
            configure(&config)
            let store = try await SQLiteStore.open(path: config.databasePath)
            let keys = JWKSCache(source: HTTPJWKSSource(url: url), algorithms: ["RS256"], now: clock.function)
            let google = IDTokenVerifier(provider: .google(clientIDs: config.googleClientIDs), keys: keys, now: clock.function)
            var logger = Logger(label: "chatterd-test")
            logger.logLevel = .warning
            let app = ChatterApp.application(
                configuration: config, parts: .init(store: store, google: google, now: clock.function), logger: logger)
            try await app.test(.live) { client in
                try await body(Harness(clock: clock, issuer: issuer, store: store, client: client))
            }
        }
    }

    // MARK: requests

    func post(_ path: String, json: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    func post(_ path: String, _ value: some Encodable) async throws -> TestResponse {
        try await post(path, json: String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    func get(_ path: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get)
    }

    /// Signs in through `/adduser` with a fresh token for `subject`.
    func signIn(subject: String = "1000001", name: String? = "Ada Lovelace") async throws -> AddUserResponse {
        let token = try issuer.sign(TestIssuer.claims(subject: subject, name: name, now: clock.now))
        let response = try await post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
        try #require(response.status == .ok, "adduser failed: \(String(buffer: response.body))")
        return try decode(AddUserResponse.self, response)
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
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
