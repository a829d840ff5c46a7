import ChatterTestSupport
import ChatterWire
import Foundation
import Hummingbird
import Logging
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `/metrics`: the counters move with what chatterd does, and only those the operator chose may read them.
@Suite struct MetricsTests {
    /// `name{labels} value` lines of a scrape, by the part before the value.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    func scrape(_ h: Harness) async throws -> [String: Double] {
        let response = try await h.get("/metrics")
        try #require(response.status == .ok)
        #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
        return Self.samples(String(buffer: response.body))
    }

    @Test func countersMoveWithSignInsRefreshesReuseAndLimits() async throws {
        try await Harness.run(metrics: Harness.metrics) { h async throws in
            let before = try await scrape(h)
            func moved(_ sample: String, by amount: Double, _ after: [String: Double]) -> Bool {
                (after[sample] ?? 0) - (before[sample] ?? 0) >= amount
            }
            let session = try await h.nativeSignIn()
            let refreshed = try h.decode(SessionResponse.self, try await h.post(NativePath.refresh, RefreshRequest(refreshToken: session.refreshToken)))
            _ = try await h.post(NativePath.refresh, RefreshRequest(refreshToken: session.refreshToken))  // the grace retry
            h.clock.advance(by: 120)
            _ = try await h.post(NativePath.refresh, RefreshRequest(refreshToken: session.refreshToken))  // reuse: the family ends
            _ = try await h.post(NativePath.google, GoogleSignInRequest(idToken: "not.a.token", clientID: TestIssuer.clientID))
            _ = try await h.requestCode("ada@example.com")
            _ = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com"))  // within the cooldown
            _ = try await h.get(NativePath.me, bearer: refreshed.accessToken)

            let after = try await scrape(h)
            let families = Set(after.keys.map { String($0.prefix { $0 != "{" && $0 != " " }) }).filter { $0.hasPrefix("chatterd_") || $0.hasPrefix("h") }
            print("metric families: \(families.sorted().joined(separator: " "))")
            #expect(moved(#"chatterd_sign_ins_total{method="google",outcome="ok"}"#, by: 1, after))
            #expect(after.keys.contains { $0.hasPrefix(#"chatterd_sign_ins_total{method="google",outcome="#) && !$0.hasSuffix(#""ok"}"#) })
            #expect(moved(#"chatterd_refreshes_total{outcome="rotated"}"#, by: 1, after))
            #expect(moved(#"chatterd_refreshes_total{outcome="grace_retry"}"#, by: 1, after))
            #expect(moved(#"chatterd_refreshes_total{outcome="reused"}"#, by: 1, after))
            #expect(moved(#"chatterd_rate_limited_total{kind="email_code"}"#, by: 1, after))
            #expect(moved(#"chatterd_session_cache_lookups_total{result="miss"}"#, by: 1, after))
            #expect(after.keys.contains { $0.hasPrefix("chatterd_jwks_fetches_total{") && $0.contains(#"result="ok""#) })
            #expect(after.keys.contains { $0.hasPrefix("chatterd_database_seconds_count{") && $0.contains(#"operation="refresh""#) })
            #expect(moved(#"http_requests_total{http_route="/v1/auth/refresh",http_request_method="POST",http_response_status_code="200"}"#, by: 2, after))
            #expect(moved(#"http_requests_total{http_route="/v1/auth/refresh",http_request_method="POST",http_response_status_code="401"}"#, by: 1, after))
            #expect(after.keys.contains { $0.hasPrefix("http_server_request_duration_seconds_bucket{") && $0.contains("/v1/me") }, "latency histograms")
        }
    }

    /// Threat model, Operations: requests are labelled by the route they matched (`NotFound` for none), and
    /// a method outside llhttp's fixed list is refused as malformed, so neither random paths nor random methods
    /// add series of their own. (Other tests record into the same registry at the same time, so this looks for
    /// the marks, not at how many series there are.)
    @Test func randomPathsAndMethodsAddNoSeriesOfTheirOwn() async throws {
        try await Harness.run(metrics: Harness.metrics) { h async throws in
            let marks = (0..<60).map { _ in UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
            for (index, mark) in marks.enumerated() {
                _ = try await index.isMultiple(of: 2) ? h.get("/\(mark)/x?\(mark)=1") : h.get("/static/\(mark)")
            }
            let port = try #require(URL(string: h.client.baseURL)?.port)
            for mark in marks.prefix(5) {
                let connection = try ConnectionLimitTests.RawConnection(port: port)
                connection.send("M\(mark.uppercased()) /health HTTP/1.1\r\nHost: chatterd\r\n\r\n")
                let answer = await ConnectionLimitTests.answer(connection)
                #expect(answer.hasPrefix("HTTP/1.1 400") || answer.isEmpty, "an unknown method: \(answer.prefix(20))")
            }
            let after = try await scrape(h).keys
            #expect(!after.contains { key in marks.contains { key.lowercased().contains($0) } }, "no path or method of these requests became a label")
            #expect(after.contains(#"http_requests_total{http_route="NotFound",http_request_method="GET",http_response_status_code="404"}"#))
            #expect(after.contains(#"http_requests_total{http_route="/static/{file}",http_request_method="GET",http_response_status_code="404"}"#))
        }
    }

    @Test func aTokenLetsAnyoneWithItReadAndNoOneElse() async throws {
        let token = "scrape-token-0123456789"
        try await Harness.run(metrics: Harness.metrics, configure: { $0.metricsToken = token }) { h async throws in
            #expect(try await h.get("/metrics").status == .notFound, "no token: as if there were no such route")
            #expect(try await h.get("/metrics", bearer: "scrape-token-012345678X").status == .notFound)
            #expect(try await h.get("/metrics", bearer: token).status == .ok)
        }
    }

    @Test func withAListenerOfItsOwnThePublicOneHasNoMetrics() async throws {
        try await Harness.run(metrics: Harness.metrics, configure: { $0.metricsBind = "127.0.0.1:0" }) { h async throws in
            #expect(try await h.get("/metrics").status == .notFound)
            #expect(try await h.get("/health").status == .ok)
        }
    }

    /// Threat model, Operations: the `--metrics-bind` listener has the main listener's deadlines, so a
    /// half-sent head, a stalled body or a connection idle after its answer is closed there too, and it goes
    /// on serving. The deadlines here are 2 s and each close is awaited 8 s at most: with the defaults
    /// (10 s for the head, 30 s for a body or an idle connection) none would come in time.
    @Test func theListenerOfItsOwnClosesSlowAndIdleConnectionsAtTheirDeadlines() async throws {
        var limits = ConnectionLimits()
        limits.headTimeout = 2
        limits.bodyTimeout = 2
        limits.idleTimeout = 2
        try await LiveService.run({ onServerRunning in
            ChatterApp.metricsListener(
                Harness.metrics, host: "127.0.0.1", port: 0, token: nil, limits: limits, onServerRunning: onServerRunning,
                logger: Logger(label: "metrics-test"))
        }) { port in
            let slowloris = try ConnectionLimitTests.RawConnection(port: port)
            slowloris.send("GET /metrics HTTP/1.1\r\nHost: chatterd\r\nX-Slow: a")
            let stalled = try ConnectionLimitTests.RawConnection(port: port)
            stalled.send("POST /metrics HTTP/1.1\r\nHost: chatterd\r\nContent-Length: 100\r\n\r\nab")
            let idle = try ConnectionLimitTests.RawConnection(port: port)
            idle.send("GET /metrics HTTP/1.1\r\nHost: chatterd\r\n\r\n")
            var answer = ""
            while !answer.contains("\r\n\r\n"), let bytes = await idle.read(within: 10), !bytes.isEmpty {
                answer += String(decoding: bytes, as: UTF8.self)
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "a whole request is answered")
            for (name, connection) in [("half-sent head", slowloris), ("stalled body", stalled), ("idle after its answer", idle)] {
                #expect(await ConnectionLimitTests.closed(connection, within: 8), "\(name): the listener closed it")
            }
        }
    }

    @Test func theListenerOfItsOwnServesMetricsToWhoeverReachesItOrToTokenBearers() async throws {
        for token in [nil, "scrape-token-0123456789"] {
            try await LiveService.run({ onServerRunning in
                ChatterApp.metricsListener(
                    Harness.metrics, host: "127.0.0.1", port: 0, token: token, onServerRunning: onServerRunning, logger: Logger(label: "metrics-test"))
            }) { port in
                try await LiveClient.with(baseURL: "http://127.0.0.1:\(port)") { listener in
                    let plain = try await listener.execute(uri: "/metrics", method: .get)
                    #expect(plain.status == (token == nil ? .ok : .notFound))
                    if let token {
                        let bearer = try await listener.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(token)"])
                        #expect(bearer.status == .ok)
                    }
                    #expect(try await listener.execute(uri: "/health", method: .get).status == .notFound, "metrics alone")
                }
            }
        }
    }

    @Test func onlyLoopbackPeersByDefault() {
        let endpoint = MetricsEndpoint(registry: Harness.metrics, access: .loopback(proxies: .none))
        for peer in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            #expect(endpoint.allows(peerIP: peer, headers: [:]), "\(peer)")
        }
        for peer in ["203.0.113.9", "10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "", "::2"] {
            #expect(endpoint.allows(peerIP: peer, headers: [:]) == false, "\(peer)")
        }
        #expect(endpoint.allows(peerIP: nil, headers: [:]) == false)
    }

    /// The finding: behind nginx on the same host, `X-Forwarded-For: 203.0.113.77` from 127.0.0.1 read the
    /// metrics. A forwarded request is someone else's, and a trusted proxy's peer address says nothing.
    @Test func aRequestPassedOnByAProxyIsNeverALoopbackRequest() throws {
        let open = MetricsEndpoint(registry: Harness.metrics, access: .loopback(proxies: .none))
        for header in MetricsEndpoint.forwardingHeaders {
            #expect(open.allows(peerIP: "127.0.0.1", headers: [header: "203.0.113.77"]) == false, "\(header)")
        }
        let behindProxy = MetricsEndpoint(registry: Harness.metrics, access: .loopback(proxies: try TrustedProxies(["127.0.0.1", "::1"])))
        #expect(behindProxy.allows(peerIP: "127.0.0.1", headers: [:]) == false, "the proxy's own address")
        #expect(behindProxy.allows(peerIP: "127.0.0.2", headers: [:]), "another loopback address is not the proxy")
    }

    @Test func overPlainHTTPOnlyATokenOrAListenerOfItsOwnServesMetrics() async throws {
        #expect(MetricsEndpoint.mainListenerAccess(token: nil, plainHTTP: true, proxies: .none) == nil)
        #expect(
            MetricsEndpoint.mainListenerAccess(token: "scrape-token-0123456789", plainHTTP: true, proxies: .none) == .token("scrape-token-0123456789"))
        #expect(MetricsEndpoint.mainListenerAccess(token: nil, plainHTTP: false, proxies: .none) == .loopback(proxies: .none))

        try await Harness.run(metrics: Harness.metrics, configure: { $0.transport = .http }) { h async throws in
            #expect(try await h.get("/metrics").status == .notFound, "from loopback too")
            #expect(try await h.get("/health").status == .ok)
        }
        try await Harness.run(metrics: Harness.metrics, configure: { $0.trustedProxies = ["127.0.0.1", "::1"] }) { h async throws in
            #expect(try await h.get("/metrics", headers: [ClientAddressMiddleware.xForwardedFor: "203.0.113.77"]).status == .notFound)
            #expect(try await h.get("/metrics").status == .notFound, "the peer is the proxy")
        }
        try await Harness.run(metrics: Harness.metrics) { h async throws in
            #expect(try await h.get("/metrics", headers: [ClientAddressMiddleware.xForwardedFor: "203.0.113.77"]).status == .notFound)
            #expect(try await h.get("/metrics").status == .ok, "a Prometheus on this machine")
        }
    }

    @Test func theSettingsAreChecked() throws {
        var config = ServerConfiguration()
        try config.apply(environment: [:], arguments: ["--metrics-bind", "[::1]:9464", "--metrics-token", "0123456789abcdef"])
        try config.validate()
        #expect(ServerConfiguration.hostAndPort("[::1]:9464")! == ("::1", 9464))
        #expect(ServerConfiguration.hostAndPort("10.0.0.5:9464")! == ("10.0.0.5", 9464))
        for bad in ["9464", ":9464", "host:", "host:99999"] {
            var wrong = ServerConfiguration()
            wrong.metricsBind = bad
            #expect(throws: ConfigurationError.self, "\(bad)") { try wrong.validate() }
        }
        var short = ServerConfiguration()
        short.metricsToken = "short"
        #expect(throws: ConfigurationError.self) { try short.validate() }
    }
}
