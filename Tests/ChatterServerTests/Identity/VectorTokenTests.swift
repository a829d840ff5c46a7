import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Real Google-signed tokens from the test fixtures, verified offline with the clock pinned.
@Suite struct VectorTokenTests {
    static let googleVectors = [
        ("google/google_a06af0b68a21_1698271431.jwt", "google/google_a06af0b68a21_1698271431.jwks.json"),
        ("google/google_f9d97b4cae90_1587626288.jwt", "google/google_f9d97b4cae90_1587626288.jwks.json"),
    ]

    /// A vector token with the claims the tests pin the clock and audience to.
    struct Loaded {
        var token: String
        var aud: String
        var iat: Double
        var exp: Double
        var sub: String?

        init(_ file: String) throws {
            token = try Vectors.text(file)
            let claims = Vectors.claims(of: token)
            aud = try #require(claims["aud"] as? String)
            iat = try #require(claims["iat"] as? Double)
            exp = try #require(claims["exp"] as? Double)
            sub = claims["sub"] as? String
        }
    }

    static func verifier(jwks: String, audiences: [String], at instant: Double) -> IDTokenVerifier {
        let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: instant) }
        let keys = JWKSCache(source: FileJWKSSource(path: Vectors.path(jwks)), algorithms: ["RS256"], now: clock)
        return IDTokenVerifier(provider: .google(clientIDs: audiences), keys: keys, now: clock)
    }

    @Test(arguments: googleVectors)
    func acceptedAtItsIssueTime(token file: String, jwks: String) async throws {
        let v = try Loaded(file)
        let identity = try await Self.verifier(jwks: jwks, audiences: [v.aud], at: v.iat).verify(v.token, clientID: v.aud)
        #expect(identity.issuer == "https://accounts.google.com")
        #expect(identity.subject == v.sub)
    }

    @Test(arguments: googleVectors)
    func rejectedOneSecondPastExpiry(token file: String, jwks: String) async throws {
        let v = try Loaded(file)
        let error = await #expect(throws: TokenRejected.self) {
            try await Self.verifier(jwks: jwks, audiences: [v.aud], at: v.exp + 1).verify(v.token, clientID: v.aud)
        }
        #expect(error?.check == .expiry)
    }

    @Test(arguments: googleVectors)
    func rejectedAtExactlyExp(token file: String, jwks: String) async throws {
        let v = try Loaded(file)
        let error = await #expect(throws: TokenRejected.self) {
            try await Self.verifier(jwks: jwks, audiences: [v.aud], at: v.exp).verify(v.token)
        }
        #expect(error?.check == .expiry)
    }

    @Test(arguments: googleVectors)
    func rejectedForAnotherAudience(token file: String, jwks: String) async throws {
        let v = try Loaded(file)
        let other = "999-other.apps.googleusercontent.com"
        let error = await #expect(throws: TokenRejected.self) {
            try await Self.verifier(jwks: jwks, audiences: [other], at: v.iat).verify(v.token, clientID: other)
        }
        #expect(error?.check == .audience)
        #expect(error?.audience == [v.aud], "the 401 must show the audience the v.token carried")
    }

    @Test func requestClientIDMustMatchTheToken() async throws {
        let (file, jwks) = Self.googleVectors[0]
        let v = try Loaded(file)
        // Both IDs are configured, but the app said it is the other one.
        let other = "999-other.apps.googleusercontent.com"
        let error = await #expect(throws: TokenRejected.self) {
            try await Self.verifier(jwks: jwks, audiences: [v.aud, other], at: v.iat).verify(v.token, clientID: other)
        }
        #expect(error?.check == .audience)
    }

    /// Every token in bad/ is rejected, against every key set the vectors hold, at its own issue time.
    @Test func everyBadTokenIsRejected() async throws {
        let bad = try ["bad/golang-jwt", "bad/node-jsonwebtoken", "bad/oidc4s", "bad/pyjwt"]
            .flatMap { try Vectors.files(in: $0, withExtension: "jwt") }
        #expect(bad.count == 9)
        let keySets = [
            "google/google_v3_certs_jwks_2020-04.json", "google/google_a06af0b68a21_1698271431.jwks.json",
            "bad/oidc4s/non_google_test_key_11e03f39.jwks.json",
        ]
        for file in bad {
            let token = try Vectors.text(file)
            let claims = Vectors.claims(of: token)
            let aud = (claims["aud"] as? String) ?? "https://example.com/path"
            let iat = (claims["iat"] as? Double) ?? 1_587_626_288
            for jwks in keySets {
                let report = await Self.verifier(jwks: jwks, audiences: [aud], at: iat).inspect(token)
                #expect(report.identity == nil, "\(file) was accepted with \(jwks)")
                #expect(report.firstFailure != nil, "\(file) has no reported failure")
            }
        }
    }

    /// Each attack is stopped by the check meant for it, not by luck further down.
    @Test(arguments: [
        ("bad/oidc4s/tokenWithAlgorithmNone.jwt", TokenCheck.algorithm),
        ("bad/oidc4s/tokenWithHs256Algorithm.jwt", .algorithm),
        ("bad/node-jsonwebtoken/wrong_alg_HS256_signed_with_pub_pem.jwt", .algorithm),
        ("bad/pyjwt/ghsa-ffqj-6fqr-9h24_HS256_signed_with_ssh_ed25519_pubkey.jwt", .algorithm),
        ("bad/oidc4s/tokenWithInvalidHeader.jwt", .format),
    ])
    func attackStoppedByItsCheck(file: String, check: TokenCheck) async throws {
        let token = try Vectors.text(file)
        let report = await Self.verifier(jwks: "bad/oidc4s/non_google_test_key_11e03f39.jwks.json", audiences: ["https://example.com/path"], at: 1_587_626_288)
            .inspect(token)
        #expect(report.firstFailure?.check == check)
        #expect(report.results.first { $0.check == .signature }?.outcome != .pass)
    }

    @Test func otherKeyFailsTheSignatureCheck() async throws {
        let token = try Vectors.text("bad/oidc4s/tokenSignedWithOtherKey.jwt")
        let report = await Self.verifier(jwks: "google/google_v3_certs_jwks_2020-04.json", audiences: ["https://example.com/path"], at: 1_587_626_288).inspect(
            token)
        #expect(report.firstFailure?.check == .signature)
    }

    @Test func emptySignatureFailsTheSignatureCheck() async throws {
        let token = try Vectors.text("bad/golang-jwt/none_test_Basic_RS256_header_empty_signature.jwt")
        let report = await Self.verifier(jwks: "google/google_v3_certs_jwks_2020-04.json", audiences: ["x"], at: 1_587_626_288).inspect(token)
        // It names no kid, so no key is chosen for it and its empty signature is never accepted.
        #expect(report.firstFailure?.check == .key)
        #expect(report.results.first { $0.check == .signature }?.outcome == .skipped)
    }

    @Test(arguments: ["bad/oidc4s/tokenWithOtherIssuer.jwt", "bad/oidc4s/tokenWithoutIssuer.jwt"])
    func validSignatureButWrongIssuer(file: String) async throws {
        let token = try Vectors.text(file)
        let report = await Self.verifier(jwks: "bad/oidc4s/non_google_test_key_11e03f39.jwks.json", audiences: ["https://example.com/path"], at: 1_587_626_288)
            .inspect(token)
        #expect(report.results.first { $0.check == .signature }?.outcome == .pass)
        #expect(report.firstFailure?.check == .issuer)
    }
}
