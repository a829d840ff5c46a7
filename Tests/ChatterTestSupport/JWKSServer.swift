import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A local HTTP listener that serves a JWKS the way Google does (with `Cache-Control: max-age`), counts
/// fetches, and can be told to fail, standing in for the provider's key endpoint.
public final class JWKSServer: Sendable {
    struct State {
        var body: [UInt8]
        var maxAge: Int? = 3600
        var failing = false
        var fetches = 0
    }

    let state: Mutex<State>

    public init(issuers: [TestIssuer]) {
        state = Mutex(State(body: TestIssuer.jwksJSON(issuers)))
    }

    public var fetches: Int { state.withLock { $0.fetches } }
    public func publish(_ issuers: [TestIssuer]) { state.withLock { $0.body = TestIssuer.jwksJSON(issuers) } }
    public func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }
    public func setMaxAge(_ seconds: Int?) { state.withLock { $0.maxAge = seconds } }

    /// Runs the listener on an ephemeral loopback port for the duration of `body`.
    public func run<T: Sendable>(_ body: @Sendable (_ url: String) async throws -> T) async throws -> T {
        let router = Router()
        router.get("certs") { _, _ -> Response in
            let snapshot = self.state.withLock { state -> State in
                state.fetches += 1
                return state
            }
            if snapshot.failing { return Response(status: .internalServerError) }
            var headers: HTTPFields = [.contentType: "application/json"]
            if let maxAge = snapshot.maxAge { headers[.cacheControl] = "public, max-age=\(maxAge), must-revalidate" }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: snapshot.body)))
        }
        return try await LiveService.run(router, label: "jwks-server") { port in try await body("http://127.0.0.1:\(port)/certs") }
    }
}
