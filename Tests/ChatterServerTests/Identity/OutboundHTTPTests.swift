import ChatterTestSupport
import Foundation
import Hummingbird
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// What chatterd fetches (Apple's token service, the providers' key sets) follows no redirect and goes only
/// to https or to this machine, against a real local server that redirects.
@Suite struct OutboundHTTPTests {
    /// A server whose provider routes answer with redirects, and that counts what reaches where they point.
    final class Redirector: Sendable {
        let port = Mutex(0)
        let followed = Mutex<[String]>([])

        var router: Router<BasicRequestContext> {
            let router = Router()
            // To another host (localhost is not 127.0.0.1), over plain http, as a hijacked answer would point.
            router.get("certs") { _, _ in self.redirect(.found, to: "keys") }
            router.post("auth/token") { _, _ in self.redirect(.temporaryRedirect, to: "stolen") }
            router.post("auth/revoke") { _, _ in self.redirect(.permanentRedirect, to: "stolen") }
            router.get("keys") { _, _ in self.record("keys") }
            router.post("stolen") { request, _ in
                let body = try await request.body.collect(upTo: 64 * 1024)
                return self.record("stolen: \(String(buffer: body))")
            }
            return router
        }

        func redirect(_ status: HTTPResponse.Status, to path: String) -> Response {
            Response(status: status, headers: [.location: "http://localhost:\(port.withLock { $0 })/\(path)"])
        }

        func record(_ what: String) -> Response {
            followed.withLock { $0.append(what) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"keys":[]}"#)))
        }

        func run(_ body: (_ base: String) async throws -> Void) async throws {
            try await LiveService.run(router, label: "redirector") { port in
                self.port.withLock { $0 = port }
                try await body("http://127.0.0.1:\(port)")
            }
        }
    }

    @Test func aRedirectIsAnAnswerNotAPlaceToGo() async throws {
        let server = Redirector()
        try await server.run { base in
            await #expect(throws: JWKSFetchError.self, "a key set behind a redirect is no key set") {
                try await HTTPJWKSSource(url: base + "/certs").fetch()
            }
            let apple = HTTPAppleAuthServer(baseURL: base)
            await #expect(throws: AppleAuthError.unavailable("/auth/token answered 307")) {
                try await apple.exchange(code: "c0de", clientID: "com.example.chatter", clientSecret: "the-client-secret")
            }
            await #expect(throws: AppleAuthError.unavailable("/auth/revoke answered 308")) {
                try await apple.revoke(refreshToken: "r3fresh", clientID: "com.example.chatter", clientSecret: "the-client-secret")
            }
        }
        #expect(server.followed.withLock { $0 } == [], "nothing reached where the redirects pointed, no secret and no code")
    }

    @Test func onlyHTTPSOrThisMachineIsFetched() async throws {
        for allowed in [
            "https://appleid.apple.com/auth/keys", "http://127.0.0.1:8080/certs", "http://localhost/x", "http://[::1]:9000/", "HTTPS://Example.org",
        ] {
            #expect(OutboundHTTP.problem(with: allowed) == nil, "\(allowed)")
        }
        for refused in [
            "http://keys.example/certs", "http://127.0.0.1.keys.example/certs", "http://128.0.0.1/", "ftp://127.0.0.1/keys", "file:///etc/passwd",
            "https://user:secret@keys.example/", "keys.example/certs", "",
        ] {
            #expect(OutboundHTTP.problem(with: refused) != nil, "\(refused)")
        }
        // At start, from a flag or a variable, with the reason.
        for (name, variable) in [
            ("google-jwks-url", "CHATTERD_GOOGLE_JWKS_URL"), ("apple-jwks-url", "CHATTERD_APPLE_JWKS_URL"), ("apple-auth-url", "CHATTERD_APPLE_AUTH_URL"),
        ] {
            var flag = ServerConfiguration()
            try flag.apply(environment: [:], arguments: ["--\(name)", "http://keys.example/"])
            let refused = #expect(throws: ConfigurationError.self) { try flag.validate() }
            #expect(refused?.description.contains("--\(name): http://keys.example/ is plain http to another machine") == true, "\(String(describing: refused))")
            var fromVariable = ServerConfiguration()
            try fromVariable.apply(environment: [variable: "https://user:pw@keys.example/"])
            #expect(throws: ConfigurationError.self) { try fromVariable.validate() }
            var local = ServerConfiguration()
            try local.apply(environment: [:], arguments: ["--\(name)", "http://127.0.0.1:9/"])
            try local.validate()
        }
        // And again when fetching, before any connection is made.
        await #expect(throws: JWKSFetchError.self) { try await HTTPJWKSSource(url: "http://keys.example/certs").fetch() }
        await #expect(throws: AppleAuthError.self) {
            try await HTTPAppleAuthServer(baseURL: "http://appleid.example").exchange(code: "c", clientID: "i", clientSecret: "s")
        }
    }
}
