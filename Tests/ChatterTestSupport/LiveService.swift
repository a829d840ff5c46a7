import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Runs a server on loopback for the length of a test and stops it gracefully, whatever the test did.
///
/// Never by cancelling the task that serves it: a connection accepted while a cancelled server tears
/// down is dropped without being closed, and SwiftNIO traps on that. So the test's error is held, the
/// server is asked to shut down, the serving task is awaited to its end, and only then is the error
/// rethrown. No connection is opened speculatively either: the client connects only for a request.
public enum LiveService {
    public struct NotStarted: Error, CustomStringConvertible {
        public var description: String { "the test server stopped before it reported its port" }
    }

    /// A stand-in's routes (a provider's endpoint) served on an ephemeral loopback port, logging warnings only, for
    /// the duration of `body`, which gets the port.
    public static func run<T: Sendable>(
        _ router: Router<BasicRequestContext>, label: String, _ body: (_ port: Int) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return try await run(
            logger: logger,
            { onServerRunning in
                Application(
                    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning, logger: logger)
            }, body)
    }

    /// `make` builds the service with the callback it must call once listening; `body` gets the port.
    public static func run<T: Sendable>(
        logger: Logger = Logger(label: "live-service"),
        _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> any Service,
        _ body: (_ port: Int) async throws -> T
    ) async throws -> T {
        let (ports, reported) = AsyncStream.makeStream(of: Int.self)
        let service = make { channel in
            reported.yield(channel.localAddress?.port ?? 0)
            reported.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { reported.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw NotStarted()
            }
            let result: Result<T, any Error>
            do { result = .success(try await body(port)) } catch { result = .failure(error) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}

/// An HTTP response as tests read it.
public struct LiveResponse: Sendable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: ByteBuffer
}

/// A real HTTP client for a live test server: a pool of connections, so requests sent together reach
/// the server together.
public struct LiveClient: Sendable {
    public let baseURL: String
    let http: HTTPClient

    /// A client for `baseURL` for the length of `body`, shut down afterwards whatever `body` did.
    public static func with<T: Sendable>(baseURL: String, _ body: (LiveClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
        configuration.redirectConfiguration = .disallow
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<T, any Error>
        do { result = .success(try await body(LiveClient(baseURL: baseURL, http: http))) } catch { result = .failure(error) }
        try await http.shutdown()
        return try result.get()
    }

    /// How long a request may take before the test fails: a hang detector, not a latency bound (no test
    /// asserts on time this way). The whole suite starts every test at once on two cores, so on a loaded
    /// machine a request queued behind a hundred others on one store's write lock waited over a minute
    /// (reproduced with busy loops beside the suite, issue 46), failing tests that assert only counts.
    public static let deadline = TimeAmount.minutes(5)

    public func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> LiveResponse {
        var request = HTTPClientRequest(url: baseURL + uri)
        request.method = HTTPMethod(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        request.body = body.map { .bytes($0) }
        let response = try await http.execute(request, timeout: Self.deadline)
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return LiveResponse(
            status: HTTPResponse.Status(code: Int(response.status.code)), headers: fields,
            body: try await response.body.collect(upTo: 64 * 1024 * 1024))
    }
}
