import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Assembles chatterd: the store, the token verifier and the routes, served over the configured transport.
public enum ChatterApp {
    /// The parts an application is built from; tests build them with a pinned clock and a local JWKS.
    public struct Parts: Sendable {
        public var store: any ChatterStore
        public var google: IDTokenVerifier
        public var now: @Sendable () -> Date

        public init(store: any ChatterStore, google: IDTokenVerifier, now: @escaping @Sendable () -> Date = Date.init) {
            self.store = store
            self.google = google
            self.now = now
        }
    }

    public static func router(configuration: ServerConfiguration, parts: Parts) -> Router<ChatterRequestContext> {
        let router = Router(context: ChatterRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.get("health") { _, _ in HealthRoute.response }
        CourseRoutes(
            store: parts.store, google: parts.google, timeline: Timeline(store: parts.store),
            sessionLifetime: configuration.sessionLifetime, allowAnonymousPosting: configuration.allowAnonymousPosting,
            now: parts.now
        ).register(on: router)
        return router
    }

    /// An application for `parts`. `server` defaults to plain HTTP/1.1; `serve` passes the TLS one.
    public static func application(
        configuration: ServerConfiguration, parts: Parts, server: HTTPServerBuilder = .http1(),
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, logger: Logger
    ) -> some ApplicationProtocol {
        var app = Application(
            router: router(configuration: configuration, parts: parts),
            server: server,
            configuration: .init(address: .hostname(configuration.bindAddress, port: configuration.port), serverName: "chatterd"),
            onServerRunning: onServerRunning,
            logger: logger)
        app.addServices(StoreService(store: parts.store, purgeInterval: .seconds(600), now: parts.now, logger: logger))
        return app
    }
}

enum HealthRoute {
    /// The cheapest answer chatterd gives: the benchmark's ceiling row.
    static let response = Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"status\":\"ok\"}")))
}
