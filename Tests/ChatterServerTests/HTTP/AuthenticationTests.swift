import ChatterTestSupport
import ChatterWire
import Hummingbird
import Logging
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Sessions are applied to a route group (`SessionAuthenticator`), not called by each handler: a handler
/// that reads its session outside that group fails closed.
@Suite struct AuthenticationTests {
    @Test func aRouteOutsideTheSignedInGroupNeverSeesASessionEvenWithAValidToken() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            let router = Router(context: ChatterRequestContext.self)
            router.add(middleware: ErrorMiddleware(page: nil))
            router.get("outside") { _, context in try context.requireSession().user.id.text }
            router.group().add(middleware: SessionAuthenticator(sessions: h.services.sessions)).get("inside") { _, context in
                try context.requireSession().user.id.text
            }
            try await LiveService.run({ onServerRunning in
                Application(
                    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning,
                    logger: Logger(label: "authentication-test"))
            }) { port in
                try await LiveClient.with(baseURL: "http://127.0.0.1:\(port)") { client in
                    let bearer: HTTPFields = [.authorization: "Bearer \(session.accessToken)"]
                    let inside = try await client.execute(uri: "/inside", method: .get, headers: bearer)
                    #expect(inside.status == .ok && String(buffer: inside.body) == session.user.id)
                    for (path, headers) in [("/outside", bearer), ("/inside", [:])] {
                        let refused = try await client.execute(uri: path, method: .get, headers: headers)
                        #expect(refused.status == .unauthorized, "\(path)")
                        #expect(try h.error(refused).code == .authenticationRequired, "\(path)")
                        #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "\(path)")
                    }
                }
            }
        }
    }
}
