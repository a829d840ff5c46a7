import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus

/// chatterd as an application: `ServerAssembly`'s services behind every route, served over the configured transport.
public enum ChatterApp {
    /// Every route, wired to the services it calls. `metrics`: the registry `/metrics` shows (chatterd
    /// bootstraps swift-metrics with it); nil serves no metrics.
    public static func router(
        configuration: ServerConfiguration, services: ServerAssembly, metrics: PrometheusCollectorRegistry? = nil
    ) -> Router<ChatterRequestContext> {
        let router = Router(context: ChatterRequestContext.self)
        // First, so it times every request: counts and latency by route and status.
        if metrics != nil { router.add(middleware: RequestMetricsMiddleware()) }
        let pages = WebPages(
            policy: WebPolicy(
                frameAncestors: configuration.webFrameAncestors, googleWebClientID: configuration.googleWebClientID,
                passkeyOrigins: configuration.relyingParty.origins.filter { $0.hasPrefix("http") }))
        router.add(middleware: ErrorMiddleware(page: pages.errorPage))
        // Validated with the rest of the configuration; an invalid list trusts no one.
        let proxies = (try? TrustedProxies(configuration.trustedProxies)) ?? .none
        // Only when it has something to do: with no proxy to trust and the default prefix, the context's own values stand.
        if !proxies.isEmpty || configuration.ipv6LimitPrefix != ClientNetwork.defaultPrefix {
            router.add(middleware: ClientAddressMiddleware(proxies: proxies, ipv6Prefix: configuration.ipv6LimitPrefix))
        }
        router.add(middleware: DPoPMiddleware(gate: services.dpop))
        if !services.appAttest.appIDs.isEmpty { router.add(middleware: AppAttestMiddleware(appAttest: services.appAttest)) }
        router.get("health") { _, _ in HealthRoute.response }
        Readiness(store: services.store, google: services.google, apple: services.apple).register(on: router)
        if let metrics, configuration.metricsBind == nil,
            let access = MetricsEndpoint.mainListenerAccess(
                token: configuration.metricsToken, plainHTTP: configuration.transport == .http, proxies: proxies)
        {
            MetricsEndpoint(registry: metrics, access: access).register(on: router)
        }
        // The native API's signed-in routes and the pages: authentication applied once, by their group.
        let signedIn = router.group().add(middleware: SessionAuthenticator(sessions: services.sessions))
        let browsers = router.group().add(middleware: VisitorMiddleware(sessions: services.sessions))
        let accountPages = browsers.group().add(middleware: SignedInPagesMiddleware())
        let (s, now) = (services, services.now)
        let web = WebSessions(signIn: s.signIn)
        CourseRoutes(
            timeline: s.timeline, sessions: s.sessions, providers: s.providers, signIn: s.signIn,
            allowAnonymousPosting: configuration.allowAnonymousPosting
        ).register(on: router)
        ProviderRoutes(providers: s.providers, signIn: s.signIn).register(on: router)
        EmailCodeRoutes(emailCodes: s.emailCodes, signIn: s.signIn).register(on: router)
        PasskeyRoutes(passkeys: s.passkeys, signIn: s.signIn).register(on: router, signedIn: signedIn)
        AppAttestRoutes(appAttest: s.appAttest).register(on: router)
        PasswordRoutes(passwords: s.passwords, signIn: s.signIn).register(on: router, signedIn: signedIn)
        SecondFactorRoutes(secondFactors: s.secondFactors, signIn: s.signIn).register(on: router, signedIn: signedIn)
        SessionRoutes(sessions: s.sessions, accounts: s.accounts).register(on: router, signedIn: signedIn)
        WebSessionRoutes(handoffs: s.handoffs, pages: pages, web: web).register(on: router, signedIn: signedIn, browsers: browsers)
        AppleNotificationRoutes(notifications: s.appleNotifications).register(on: router)
        ChattRoutes(timeline: s.timeline).register(on: router, signedIn: signedIn)
        OpenAPIRoute.register(on: router)
        WellKnownRoutes(association: configuration.appAssociation).register(on: router)
        TimelinePages(timeline: s.timeline, pages: pages, web: web).register(on: browsers)
        let auth = AuthPages(
            emailCodes: s.emailCodes, passwords: s.passwords, providers: s.providers, signIn: s.signIn, pages: pages, web: web, now: now)
        auth.register(on: browsers)
        SecondFactorPages(signIn: s.signIn, pages: pages, web: web).register(on: browsers)
        SecondFactorAccountPages(secondFactors: s.secondFactors, pages: pages, web: web).register(on: accountPages)
        let account = AccountPages(
            accounts: s.accounts, emailChange: s.emailChange, passwords: s.passwords, passkeys: s.passkeys, secondFactors: s.secondFactors, stepUp: s.stepUp,
            pages: pages, web: web)
        StepUpPages(secondFactors: s.secondFactors, passkeys: s.passkeys, account: account, pages: pages, web: web).register(on: accountPages)
        account.register(on: browsers, signedIn: accountPages)
        PasskeyPages(passkeys: s.passkeys, auth: auth, account: account, web: web).register(on: browsers, signedIn: accountPages)
        let access = OperatorAccess(
            admin: s.admin, secondFactors: s.store, stepUp: s.stepUp, requiresSecondFactor: configuration.adminRequiresSecondFactor)
        AdminPages(admin: s.admin, access: access, pages: pages, web: web).register(on: browsers)
        router.get("static/:file") { _, context in
            guard let response = context.parameters.get("file").flatMap(pages.asset) else { throw APIError(.notFound, .notFound, "No such file.") }
            return response
        }
        return router
    }

    /// An application serving `services`. `server` defaults to plain HTTP/1.1 with the configured connection
    /// deadlines; `serve` passes the one `PreparedTransport` made. Connections are capped either way.
    public static func application(
        configuration: ServerConfiguration, services: ServerAssembly, server: HTTPServerBuilder? = nil,
        metrics: PrometheusCollectorRegistry? = nil, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        logger: Logger
    ) -> some ApplicationProtocol {
        var app = Application(
            router: router(configuration: configuration, services: services, metrics: metrics),
            server: server ?? configuration.connections.http1(secure: false, logger: logger),
            configuration: .init(
                address: .hostname(configuration.bindAddress, port: configuration.port), serverName: "chatterd",
                availableConnectionsDelegate: ConnectionCap(maximum: configuration.connections.connectionCap(), logger: logger)),
            onServerRunning: onServerRunning,
            logger: logger)
        // Added first, so they stop last: the pool outlives every request and the store's own service.
        app.addServices(services.store.services)
        if let metrics, let bind = configuration.metricsBind.flatMap(ServerConfiguration.hostAndPort) {
            app.addServices(
                metricsListener(
                    metrics, host: bind.host, port: bind.port, token: configuration.metricsToken, limits: configuration.connections, logger: logger))
        }
        app.addServices(
            StoreService(
                store: services.store, purgeInterval: .seconds(600), lifetimes: configuration.lifetimes,
                auditRetentionDays: configuration.auditRetentionDays == 0 ? nil : configuration.auditRetentionDays,
                appleTokens: services.appleTokens, now: services.now, logger: logger))
        return app
    }
}

extension ChatterApp {
    /// `--metrics-bind`: `/metrics` alone, on a listener of its own (plain HTTP: an address the operator keeps
    /// private), to whoever reaches it, or to bearers of `--metrics-token` when one is set.
    static func metricsListener(
        _ registry: PrometheusCollectorRegistry, host: String, port: Int, token: String?, limits: ConnectionLimits = ConnectionLimits(),
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router(context: ChatterRequestContext.self)
        router.add(middleware: ErrorMiddleware(page: nil))
        MetricsEndpoint(registry: registry, access: token.map { .token($0) } ?? .anyone).register(on: router)
        // The same deadlines as the main listener, and a cap of its own: a scraper needs a connection or two.
        return Application(
            router: router, server: limits.http1(secure: false, logger: logger),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "chatterd-metrics",
                availableConnectionsDelegate: ConnectionCap(maximum: 16, logger: logger)),
            onServerRunning: onServerRunning, logger: logger)
    }
}

enum HealthRoute {
    /// The cheapest answer chatterd gives: the benchmark's ceiling row.
    static let response = Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"status\":\"ok\"}")))
}
