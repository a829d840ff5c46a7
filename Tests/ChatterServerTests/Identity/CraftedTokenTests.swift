import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Tokens the test signs with its own key, served from a local JWKS listener, to cover each rule.
@Suite struct CraftedTokenTests {
    let clock = TestClock()
    let issuer: TestIssuer

    init() throws { issuer = try TestIssuer() }

    func withVerifier<T: Sendable>(_ body: @Sendable (IDTokenVerifier, JWKSServer) async throws -> T) async throws -> T {
        let server = JWKSServer(issuers: [issuer])
        let clock = self.clock
        return try await server.run { url in
            let keys = JWKSCache(source: HTTPJWKSSource(url: url), algorithms: ["RS256"], now: clock.function)
            let verifier = IDTokenVerifier(provider: .google(clientIDs: [TestIssuer.clientID]), keys: keys, now: clock.function)
            return try await body(verifier, server)
        }
    }

    func check(_ token: String) async throws -> TokenCheck? {
        try await withVerifier { verifier, _ in await verifier.inspect(token, clientID: TestIssuer.clientID).firstFailure?.check }
    }

    @Test func validTokenIsAcceptedWithItsIdentity() async throws {
        let claims = TestIssuer.claims(subject: "42", now: clock.now)
        let token = try issuer.sign(claims)
        let identity = try await withVerifier { verifier, _ in try await verifier.verify(token, clientID: TestIssuer.clientID) }
        #expect(
            identity
                == VerifiedIdentity(
                    issuer: TestIssuer.googleIssuer, subject: "42", name: "Ada Lovelace", email: "42@example.com", emailVerified: true, nonce: nil, events: nil,
                    tokenID: nil, expiresAt: (claims["exp"] as? Int).map(Double.init), audience: TestIssuer.clientID))
    }

    @Test func bareIssuerIsAccepted() async throws {
        var claims = TestIssuer.claims(now: clock.now)
        claims["iss"] = "accounts.google.com"
        let token = try issuer.sign(claims)
        #expect(try await check(token) == nil)
        let identity = try await withVerifier { verifier, _ in try await verifier.verify(token, clientID: TestIssuer.clientID) }
        #expect(identity.issuer == "https://accounts.google.com", "one spelling per issuer, so one person stays one user")
    }

    /// A nonce claim that is there but no string is refused where nonces are checked, even when the app sent
    /// none (it once read as "no nonce on either side" and passed); where nonces are not checked it changes nothing.
    @Test(arguments: [42, ["n"], ["n": "n"], true] as [any Sendable])
    func aNonceThatIsNoStringIsRefused(value: any Sendable) async throws {
        var claims = TestIssuer.claims(now: clock.now)
        claims["nonce"] = value
        let token = try issuer.sign(claims)
        try await withVerifier { verifier, _ in
            let checked = await verifier.inspect(token, clientID: TestIssuer.clientID, nonce: .raw(nil))
            #expect(checked.firstFailure?.check == .nonce)
            #expect(checked.firstFailure?.detail == "the token's nonce is not a string")
            let withNonce = await verifier.inspect(token, clientID: TestIssuer.clientID, nonce: .raw("abc"))
            #expect(withNonce.firstFailure?.check == .nonce)
            #expect(await verifier.inspect(token, clientID: TestIssuer.clientID, nonce: .notChecked).firstFailure == nil, "the course route checks none")
        }
    }

    @Test func tamperedPayloadFailsTheSignature() async throws {
        let token = try issuer.sign(TestIssuer.claims(subject: "42", now: clock.now))
        let parts = token.split(separator: ".").map(String.init)
        let forged = [parts[0], TestIssuer.segment(TestIssuer.claims(subject: "43", now: clock.now)), parts[2]].joined(separator: ".")
        #expect(try await check(forged) == .signature)
    }

    @Test(arguments: ["jku", "x5u", "jwk", "x5c", "crit"])
    func keySelectingHeadersAreRefused(header: String) async throws {
        let value: Any = header == "jwk" ? issuer.jwk : (header == "crit" || header == "x5c" ? ["exp"] : "https://attacker.example/keys")
        let token = try issuer.sign(TestIssuer.claims(now: clock.now), header: [header: value])
        #expect(try await check(token) == .header)
    }

    @Test(arguments: ["../../etc/passwd", "x' OR '1'='1", ""])
    func hostileKidsFindNoKey(kid: String) async throws {
        let token = try issuer.sign(TestIssuer.claims(now: clock.now), header: ["kid": kid])
        #expect(try await check(token) == .key)
    }

    @Test func twoSegmentTokenIsMalformed() async throws {
        let token = try issuer.sign(TestIssuer.claims(now: clock.now))
        #expect(try await check(token.split(separator: ".").prefix(2).joined(separator: ".")) == .format)
    }

    /// Segments are split on the `.` byte: one that a combining mark follows (one `Character` with it) still
    /// ends a segment, and what follows is no base64url, so the token is malformed as before.
    @Test func aDotWithACombiningMarkAfterItIsMalformed() async throws {
        let parts = try issuer.sign(TestIssuer.claims(now: clock.now)).split(separator: ".").map(String.init)
        #expect(try await check(parts[0] + ".\u{301}" + parts[1] + "." + parts[2]) == .format)
        #expect(try await check(parts[0] + "." + parts[1] + "\u{301}." + parts[2]) == .format)
        #expect(try await check(parts.joined(separator: ".")) == nil, "the unaltered token passes")
    }

    @Test func notBeforeInTheFutureBeyondLeeway() async throws {
        var claims = TestIssuer.claims(now: clock.now)
        claims["nbf"] = Int(clock.now.timeIntervalSince1970) + 120
        #expect(try await check(issuer.sign(claims)) == .notBefore)
        claims["nbf"] = Int(clock.now.timeIntervalSince1970) + 30  // within the 60 s leeway
        #expect(try await check(issuer.sign(claims)) == nil)
    }

    @Test func issuedInTheFutureBeyondLeeway() async throws {
        var claims = TestIssuer.claims(now: clock.now)
        claims["iat"] = Int(clock.now.timeIntervalSince1970) + 120
        #expect(try await check(issuer.sign(claims)) == .issuedAt)
    }

    /// Found in review: `exp` = 1e308 was accepted as never expiring, and an `nbf` that is not a number was read as absent.
    @Test func aTokenThatClaimsToLiveLongerThanADayIsRefused() async throws {
        var claims = TestIssuer.claims(now: clock.now)
        let now = clock.now.timeIntervalSince1970
        claims["exp"] = 1e308
        #expect(try await check(issuer.sign(claims)) == .lifetime)
        claims["exp"] = Int(now) + 86_400 + 60
        claims["iat"] = Int(now) - 60
        #expect(try await check(issuer.sign(claims)) == .lifetime)
        claims["exp"] = Int(now) + 86_400 - 61
        #expect(try await check(issuer.sign(claims)) == nil, "a day is still accepted")
    }

    @Test(arguments: ["exp", "iat", "nbf"])
    func aTimeClaimThatIsNotANumberIsRefusedByName(claim: String) async throws {
        for value: Any in ["soon", true, ["1"], NSNull()] {
            var claims = TestIssuer.claims(now: clock.now)
            claims[claim] = value
            let expected: TokenCheck = claim == "exp" ? .expiry : claim == "iat" ? .issuedAt : .notBefore
            #expect(try await check(issuer.sign(claims)) == expected, "\(claim): \(value)")
        }
    }

    @Test func missingExpiryIsRejected() async throws {
        var claims = TestIssuer.claims(now: clock.now)
        claims["exp"] = nil
        #expect(try await check(issuer.sign(claims)) == .expiry)
    }

    @Test func audienceArrayNeedsOurAuthorizedParty() async throws {
        var claims = TestIssuer.claims(audience: [TestIssuer.clientID, "someone-else"], now: clock.now)
        claims["azp"] = "someone-else"
        #expect(try await check(issuer.sign(claims)) == .audience)
        claims["azp"] = TestIssuer.clientID
        #expect(try await check(issuer.sign(claims)) == nil)
    }

    @Test func unknownKeyFromAnotherIssuerIsRejected() async throws {
        let stranger = try TestIssuer(kid: "stranger")
        #expect(try await check(stranger.sign(TestIssuer.claims(now: clock.now))) == .key)
    }

    @Test func sameKidButOtherKeyFailsTheSignature() async throws {
        let impostor = try TestIssuer(kid: issuer.kid, differentFrom: issuer)
        #expect(try await check(impostor.sign(TestIssuer.claims(now: clock.now))) == .signature)
    }

    @Test func missingSubjectIsRejected() async throws {
        var claims = TestIssuer.claims(now: clock.now)
        claims["sub"] = nil
        #expect(try await check(issuer.sign(claims)) == .subject)
    }

    @Test func reportCarriesHeaderAndClaimsButNotTheSignature() async throws {
        let token = try issuer.sign(TestIssuer.claims(now: clock.now))
        let report = try await withVerifier { verifier, _ in await verifier.inspect(token) }
        let signature = String(token.split(separator: ".")[2])
        #expect(report.headerJSON?.contains("RS256") == true)
        #expect(report.claimsJSON?.contains("Ada Lovelace") == true)
        #expect(report.headerJSON?.contains(signature) == false)
        #expect(report.claimsJSON?.contains(signature) == false)
        #expect(report.results.map(\.check) == TokenCheck.allCases)
    }
}
