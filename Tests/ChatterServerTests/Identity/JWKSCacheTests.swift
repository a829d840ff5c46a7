import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The key cache against a real local HTTP listener that counts fetches.
@Suite struct JWKSCacheTests {
    let clock = TestClock()

    func withCache<T: Sendable>(
        _ issuers: [TestIssuer], _ body: @Sendable (JWKSCache, JWKSServer) async throws -> T
    ) async throws -> T {
        let server = JWKSServer(issuers: issuers)
        let clock = self.clock
        return try await server.run { url in
            try await body(JWKSCache(source: HTTPJWKSSource(url: url), algorithms: ["RS256"], minimumRefetchInterval: 60, now: clock.function), server)
        }
    }

    func isFound(_ lookup: JWKSCache.Lookup) -> Bool {
        if case .found = lookup { return true }
        return false
    }

    @Test func maxAgeIsHonoured() async throws {
        let key = try TestIssuer()
        try await withCache([key]) { cache, server in
            server.setMaxAge(600)
            #expect(isFound(await cache.keys(for: key.kid)))
            clock.advance(by: 599)
            #expect(isFound(await cache.keys(for: key.kid)))
            #expect(server.fetches == 1, "a fresh cache must not refetch")
            clock.advance(by: 2)
            #expect(isFound(await cache.keys(for: key.kid)))
            #expect(server.fetches == 2, "an expired cache refetches once")
        }
    }

    @Test func unknownKidRefetchIsRateLimited() async throws {
        let key = try TestIssuer()
        let rotated = try TestIssuer(kid: "rotated")
        try await withCache([key]) { cache, server in
            #expect(isFound(await cache.keys(for: key.kid)))
            // Right after a fetch, an unknown kid does not refetch at all.
            _ = await cache.keys(for: "made-up")
            #expect(server.fetches == 1)
            // Later, a kid nobody publishes triggers one refetch, then none for the rest of the interval.
            clock.advance(by: 61)
            for _ in 0..<20 { _ = await cache.keys(for: "made-up") }
            #expect(server.fetches == 2)
            // The provider rotates: the new kid is found once the interval has passed.
            server.publish([key, rotated])
            clock.advance(by: 30)
            if case .unknownKid = await cache.keys(for: rotated.kid) {} else { Issue.record("refetched inside the interval") }
            clock.advance(by: 31)
            #expect(isFound(await cache.keys(for: rotated.kid)))
            #expect(server.fetches == 3)
        }
    }

    @Test func lastGoodKeysAreKeptWhenAFetchFails() async throws {
        let key = try TestIssuer()
        try await withCache([key]) { cache, server in
            server.setMaxAge(120)
            #expect(isFound(await cache.keys(for: key.kid)))
            server.setFailing(true)
            clock.advance(by: 121)
            #expect(isFound(await cache.keys(for: key.kid)), "the expired keys stay in use while the provider fails")
            #expect(server.fetches == 2)
        }
    }

    @Test func concurrentLookupsShareOneFetch() async throws {
        let key = try TestIssuer()
        try await withCache([key]) { cache, server in
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { _ = await cache.keys(for: key.kid) } }
            }
            #expect(server.fetches == 1)
        }
    }

    @Test func noKeysAtAllIsUnavailable() async throws {
        let key = try TestIssuer()
        try await withCache([key]) { cache, server in
            server.setFailing(true)
            if case .unavailable = await cache.keys(for: key.kid) {} else { Issue.record("expected unavailable") }
        }
    }

    @Test func cacheControlParsing() {
        #expect(CacheControl.maxAge("public, max-age=19845, must-revalidate, no-transform") == 19845)
        #expect(CacheControl.maxAge("no-cache") == nil)
        // Found by fuzzing: an endless max-age kept keys forever; numbers that are not seconds are ignored.
        for value in ["max-age=1e309", "max-age=inf", "max-age=nan", "max-age=-5"] {
            #expect(CacheControl.maxAge(value) == nil, "\(value)")
        }
        #expect(CacheControl.maxAge("max-age=31536000") == CacheControl.longestMaxAge)
    }

    /// Found by fuzzing: an RSA key with private parts and an even modulus trapped inside swift-crypto.
    @Test func keysWithPrivatePartsAreSkippedUnread() async throws {
        let hostile = #"{"keys":[{"kty":"RSA","kid":"k","n":"AQAAAAAAAAAA","e":"AQAB","d":"AQAB"}]}"#
        await #expect(throws: JWKSFetchError.self) { try await JWKSCache.keySet(from: Array(hostile.utf8), algorithms: ["RS256"]) }
        let good = try TestIssuer()
        var withPrivate = good.jwk
        withPrivate["kid"] = "with-private"
        withPrivate["d"] = "AQAB"
        let json = Array(try JSONSerialization.data(withJSONObject: ["keys": [good.jwk, withPrivate]]))
        #expect(try await JWKSCache.keySet(from: json, algorithms: ["RS256"]).kids == [good.kid])
    }

    @Test func keysForOtherAlgorithmsAreIgnored() async throws {
        let key = try TestIssuer()
        var jwk = key.jwk
        jwk["alg"] = "RS512"
        let json = Array(try JSONSerialization.data(withJSONObject: ["keys": [jwk]]))
        await #expect(throws: JWKSFetchError.self) { try await JWKSCache.keySet(from: json, algorithms: ["RS256"]) }
    }
}
