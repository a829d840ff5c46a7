import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain

/// The proof checks of RFC 9449 §4.3, against the RFC's own signed examples (`Fixtures/vectors/dpop`) and
/// their tampered variants, then against proofs a client or an attacker would make.
@Suite struct DPoPProofTests {
    static let rfcThumbprint = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
    static let rfcAccessToken = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
    let verifier = DPoPVerifier()
    let token = DPoPTarget(method: "POST", authority: "server.example.com", path: "/token")
    let resource = DPoPTarget(method: "GET", authority: "resource.example.org", path: "/protectedresource")

    func vector(_ name: String) throws -> String { try Vectors.text("dpop/rfc9449-\(name).jwt") }

    @Test func theRFCsProofsVerifyWithTheRFCsThumbprint() throws {
        let figure2 = try verifier.verify(try vector("figure2-token"), for: token, accessToken: nil, at: Date(timeIntervalSince1970: 1_562_262_618))
        #expect(figure2.thumbprint == Self.rfcThumbprint && figure2.jti == "-BwC3ESc6acc2lTc")
        let figure7 = try verifier.verify(try vector("figure7-refresh"), for: token, accessToken: nil, at: Date(timeIntervalSince1970: 1_562_265_300))
        #expect(figure7.thumbprint == Self.rfcThumbprint)
        let figure13 = try verifier.verify(
            try vector("figure13-resource"), for: resource, accessToken: Self.rfcAccessToken, at: Date(timeIntervalSince1970: 1_562_262_620))
        #expect(figure13.thumbprint == Self.rfcThumbprint && figure13.jti == "e1j3V_bKic8-LAEB")
        #expect(DPoPVerifier.accessTokenHash(Self.rfcAccessToken) == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    /// Each check of §4.3 refuses the RFC's proof when what it names is not this request's.
    @Test func theRFCsProofIsRefusedForAnotherRequest() throws {
        let proof = try vector("figure13-resource")
        let at = Date(timeIntervalSince1970: 1_562_262_620)
        let cases: [(DPoPTarget, String?, Date, DPoPCheck)] = [
            (DPoPTarget(method: "POST", authority: "resource.example.org", path: "/protectedresource"), Self.rfcAccessToken, at, .method),
            (DPoPTarget(method: "GET", authority: "attacker.example", path: "/protectedresource"), Self.rfcAccessToken, at, .url),
            (DPoPTarget(method: "GET", authority: "resource.example.org", path: "/other"), Self.rfcAccessToken, at, .url),
            (DPoPTarget(method: "GET", authority: "resource.example.org", path: "/protectedResource"), Self.rfcAccessToken, at, .url),
            (resource, "another token", at, .accessTokenHash),
            (resource, Self.rfcAccessToken, at.addingTimeInterval(121), .issuedAt),
            (resource, Self.rfcAccessToken, at.addingTimeInterval(-70), .issuedAt),
        ]
        for (target, accessToken, now, check) in cases {
            #expect(Self.check(of: { try verifier.verify(proof, for: target, accessToken: accessToken, at: now) }) == check, "\(target) \(now)")
        }
        // The default port may be spelt or left out, the host's case does not matter; the path's does.
        for authority in ["resource.example.org:443", "Resource.Example.ORG"] {
            _ = try verifier.verify(
                proof, for: DPoPTarget(method: "GET", authority: authority, path: "/protectedresource"), accessToken: Self.rfcAccessToken, at: at)
        }
    }

    /// One character changed anywhere, or the parts moved between proofs, and the signature no longer holds.
    @Test func tamperedRFCProofsAreRefused() throws {
        let proof = try vector("figure2-token")
        let at = Date(timeIntervalSince1970: 1_562_262_618)
        let parts = proof.split(separator: ".").map(String.init)
        // The claims re-encoded with PUT for POST: the signature no longer covers them.
        let claims = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self).replacingOccurrences(of: "POST", with: "PUT")
        let put = [parts[0], Base64URL.encode(Array(claims.utf8)), parts[2]].joined(separator: ".")
        let otherSignature = [parts[0], parts[1], String(try vector("figure7-refresh").split(separator: ".")[2])].joined(separator: ".")
        var flipped = Array(parts[2].utf8)
        flipped[10] = flipped[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let badSignature = [parts[0], parts[1], String(decoding: flipped, as: UTF8.self)].joined(separator: ".")
        for (tampered, target) in [
            (put, DPoPTarget(method: "PUT", authority: "server.example.com", path: "/token")), (otherSignature, token), (badSignature, token),
        ] {
            #expect(Self.check(of: { try verifier.verify(tampered, for: target, accessToken: nil, at: at) }) == .signature)
        }
        for malformed in [
            "", "a.b", parts[0] + "." + parts[1], proof + ".x", proof + "=", parts[0] + "=." + parts[1] + "." + parts[2], String(repeating: "A", count: 3000),
            "\u{1F600}.\u{1F600}.\u{1F600}",
        ] {
            #expect(Self.check(of: { try verifier.verify(malformed, for: token, accessToken: nil, at: at) }) == .malformed)
        }
    }

    /// Proofs no client should make: each is refused by the check it breaks, before or at the signature.
    @Test func proofsOutsideTheProfileAreRefused() throws {
        let key = DPoPTestKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let url = "https://server.example.com/token"
        let cases: [(String, DPoPCheck)] = [
            (key.proof("POST", url, at: now, header: ["typ": "JWT"]), .type),
            (key.proof("POST", url, at: now, header: ["alg": "none"]), .algorithm),
            (key.proof("POST", url, at: now, header: ["alg": "HS256"]), .algorithm),
            (key.proof("POST", url, at: now, header: ["alg": "ES384"]), .algorithm),
            (key.proof("POST", url, at: now, header: ["jwk-extra": #","d":"AAAA""#]), .key),
            (key.proof("POST", url, at: now, header: ["whole": #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}}"#]), .key),
            (
                key.proof("POST", url, at: now, header: ["whole": #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"RSA","crv":"P-256","x":"AA","y":"AA"}}"#]),
                .key
            ),
            // A point not on the curve (x = y = 1).
            (
                key.proof(
                    "POST", url, at: now,
                    header: [
                        "whole":
                            #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE"}}"#
                    ]), .key
            ),
            (key.proof("POST", url, at: now, header: ["whole": #"{"typ":"dpop+jwt","alg":"ES256"}"#]), .malformed),
            // RFC 7515 §4.1.11: an extension the proof says must be understood, and chatterd understands none.
            (key.proof("POST", url, at: now, header: ["extra": #","crit":["exp"],"exp":1"#]), .malformed),
            (key.proof("POST", url, at: now, jti: ""), .malformed),
            (key.proof("POST", url, at: now, jti: String(repeating: "j", count: 300)), .malformed),
            (key.proof("POST", "https://server.example.com/token?x=1#frag", at: now.addingTimeInterval(61)), .issuedAt),
            (key.proof("POST", "ftp://server.example.com/token", at: now), .url),
            (key.proof("POST", "https://user:pw@server.example.com/token", at: now), .url),
            (key.proof("POST", "https://server.example.com:8443/token", at: now), .url),
            (key.proof("POST", "https://server.example.com\u{212A}/token", at: now), .url),
        ]
        for (proof, check) in cases {
            #expect(Self.check(of: { try verifier.verify(proof, for: token, accessToken: nil, at: now) }) == check, "\(proof)")
        }
        // A query and a fragment are not compared (§4.3 check 9).
        _ = try verifier.verify(key.proof("POST", "https://server.example.com/token?x=1#f", at: now), for: token, accessToken: nil, at: now)
        // A proof made without `ath` is refused where a token is presented.
        #expect(
            Self.check(of: {
                try verifier.verify(
                    key.proof("GET", url, at: now), for: DPoPTarget(method: "GET", authority: "server.example.com", path: "/token"), accessToken: "t", at: now)
            }) == .accessTokenHash)
    }

    /// Server nonces: none, another server's or an old one asks for a new proof with the current one; the
    /// current and the one just before it are accepted.
    @Test func aServerNonceIsCurrentForTwoSteps() throws {
        let nonces = DPoPNonces(key: SessionTokenKey(key: SessionTokenKey.newKey(), untaggedUntil: .distantPast))
        let other = DPoPNonces(key: SessionTokenKey(key: SessionTokenKey.newKey(), untaggedUntil: .distantPast))
        let verifier = DPoPVerifier(nonces: nonces)
        let key = DPoPTestKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let url = "https://server.example.com/token"
        for nonce in [nil, other.current(at: now), nonces.current(at: now.addingTimeInterval(-600)), "x"] {
            do {
                _ = try verifier.verify(key.proof("POST", url, nonce: nonce, at: now), for: token, accessToken: nil, at: now)
                Issue.record("accepted \(nonce ?? "no nonce")")
            } catch .nonce(let fresh) {
                #expect(fresh == nonces.current(at: now))
            } catch {
                Issue.record("\(error)")
            }
        }
        for nonce in [nonces.current(at: now), nonces.current(at: now.addingTimeInterval(-300))] {
            _ = try verifier.verify(key.proof("POST", url, nonce: nonce, at: now), for: token, accessToken: nil, at: now)
        }
        #expect(nonces.current(at: now) != nonces.current(at: now.addingTimeInterval(300)))
    }

    @Test func theThumbprintIsRFC7638s() {
        let key = DPoPTestKey()
        #expect(
            DPoPVerifier.thumbprint(x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs", y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA") == Self.rfcThumbprint)
        let now = Date()
        #expect(
            (try? verifier.verify(
                key.proof("POST", "https://h/token", at: now), for: DPoPTarget(method: "POST", authority: "h", path: "/token"), accessToken: nil, at: now))?
                .thumbprint == key.thumbprint)
    }

    static func check(of verify: () throws -> DPoPProof) -> DPoPCheck? {
        do {
            _ = try verify()
            return nil
        } catch DPoPError.rejected(let check, _) {
            return check
        } catch {
            return nil
        }
    }
}
