import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain

/// The reader of a DPoP proof's header and claims: RFC 8259's JSON, read to the values Foundation reads,
/// and refused where a proof's JSON could mean two things to two readers.
@Suite struct ProofJSONTests {
    static func read(_ text: String) -> [String: ProofJSONValue]? { ProofJSON.object(Array(text.utf8)) }

    /// Foundation's reading of the same bytes, in `ProofJSONValue`'s terms: what the strict reader must agree with.
    static func foundation(_ text: String) -> [String: ProofJSONValue]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        func value(_ any: Any) -> ProofJSONValue {
            switch any {
            case let text as String: return .string(text)
            case let members as [String: Any]: return .object(members.mapValues(value))
            case is [Any]: return .array
            case is NSNull: return .null
            // Booleans come as NSNumber too: the texts below hold them only in arrays, which are compared as arrays.
            case let number as NSNumber: return .number(number.doubleValue)
            default: return .null
            }
        }
        return object.mapValues(value)
    }

    @Test func readsWhatFoundationReads() {
        let texts = [
            #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","crv":"P-256"}}"#,
            #"{"jti":"-BwC3ESc6acc2lTc","htm":"POST","htu":"https://server.example.com/token","iat":1562262616}"#,
            " {\n\t\"a\" : [ 1 , {\"b\" : [ ] } , \"c\" , true , false , null ] , \"d\" : { } }\r\n",
            #"{"escapes":"\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00\u0000","plain":"é€😀"}"#,
            #"{"n":[0,-0,1.5,-2.25e3,1E-2,6.02e+23,0e-400,3e-324,123456789012345678901234567890],"i":-7,"f":0.1}"#,
            #"{"zero":0e-400,"negative zero":-0.0e-99999,"smallest":3e-324,"i":-7,"f":0.1}"#,
            #"{"":"empty name","nested":{"a":{"b":{"c":1}}}}"#,
        ]
        for text in texts {
            let read = Self.read(text)
            #expect(read != nil, "\(text)")
            #expect(read == Self.foundation(text), "\(text)")
        }
        #expect(Self.read(#"{"n":1562262616.5}"#)?["n"] == .number(1_562_262_616.5))
        #expect(Self.read(#"{"s":"\ud83d\ude00"}"#)?["s"] == .string("😀"))
    }

    /// Each is refused: not JSON, or JSON a proof has no reason to send that two readers could read two ways.
    @Test func refusesWhatIsNotStrictJSON() {
        let refused = [
            "", " ", "[]", "\"x\"", "1", "null", "{", "}", "{}}", "{} x", "\u{FEFF}{}", "{,}",
            #"{"a":1,}"#, #"{"a":1 "b":2}"#, #"{'a':1}"#, #"{a:1}"#, #"{"a"}"#, #"{"a":}"#, #"{"a":[1,]}"#, #"{"a":[1 2]}"#,
            #"{"a":1}/*c*/"#, #"{"a":01}"#, #"{"a":-}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":1e}"#, #"{"a":+1}"#, #"{"a":0x10}"#,
            #"{"a":1e400}"#, #"{"a":-1e400}"#,
            // Digits that round to zero: JSONDecoder refuses them (found by the fuzzer's JSONDecoder comparison).
            #"{"a":1e-400}"#, #"{"a":-1e-400}"#, #"{"a":2e-324}"#, #"{"a":0.5e-5555555555555555555555}"#, #"{"a":[0,1e-330]}"#, #"{"a":NaN}"#,
            #"{"a":Infinity}"#, #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":True}"#,
            // Strings: a control character, a bad escape, an unpaired surrogate either way, an unfinished one.
            "{\"a\":\"x\ny\"}", #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#, #"{"a":"\ud83d"}"#, #"{"a":"\ud83dx"}"#,
            #"{"a":"\ud83d\u0041"}"#, #"{"a":"\ude00"}"#, #"{"a":"abc}"#, #"{"a":"abc\"}"#,
            // The same name twice: one reader takes the first `alg`, another the last.
            #"{"alg":"ES256","alg":"none"}"#, #"{"jwk":{"x":"a","x":"b"}}"#, #"{"a":1,"\u0061":2}"#,
            // Two spellings of é (precomposed, and e with a combining accent) are one name to Swift's strings.
            #"{"\u00e9":1,"e\u0301":2}"#,
            // Deeper than four.
            #"{"a":{"b":{"c":{"d":{"e":1}}}}}"#, #"{"a":[[[[1]]]]}"#,
        ]
        for text in refused {
            #expect(Self.read(text) == nil, "accepted \(text.debugDescription)")
        }
        // Bytes that are not UTF-8, inside a string and outside one.
        #expect(ProofJSON.object(Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)) == nil)
        #expect(ProofJSON.object(Array(#"{"a":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)) == nil)
        #expect(ProofJSON.object([0x7B, 0xFF, 0x7D]) == nil)
        // Four deep is the limit, not three.
        #expect(Self.read(#"{"a":{"b":{"c":{"d":1}}}}"#) != nil)
    }

    /// A proof whose header could mean ES256 to one reader and `none` to another is refused before its
    /// signature is looked at, whichever `alg` comes first.
    @Test func aProofNamingAMemberTwiceIsRefused() {
        let key = DPoPTestKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let target = DPoPTarget(method: "POST", authority: "server.example.com", path: "/token")
        let url = "https://server.example.com/token"
        for proof in [
            key.proof("POST", url, at: now, header: ["extra": #","alg":"none""#]),
            key.proof("POST", url, at: now, header: ["alg": "none", "extra": #","alg":"ES256""#]),
            key.proof("POST", url, at: now, header: ["extra": #","typ":"dpop+jwt""#]),
            key.proof("POST", url, at: now, header: ["jwk-extra": #","x":"AAAA""#]),
            key.proof("POST", url, at: now, claims: ["htm": #""GET""#]),
            key.proof("POST", url, at: now, claims: ["iat": "0"]),
        ] {
            #expect(DPoPProofTests.check(of: { try DPoPVerifier().verify(proof, for: target, accessToken: nil, at: now) }) == .malformed)
        }
        // Escapes and spacing are JSON's own: the same members spelt another way verify.
        let spelt = key.proof("POST", url, at: now, claims: ["extra": #" { "nested" : [ true, null ] } "#])
        #expect((try? DPoPVerifier().verify(spelt, for: target, accessToken: nil, at: now)) != nil)
    }

    /// Optional members given in another form than a string: `crit` and `d` in any form (null too) refuse the
    /// proof, `ath` and `nonce` as null are absent, and a key that is not an object is no key.
    @Test func membersInAnotherFormAreRefusedOrAbsent() {
        let key = DPoPTestKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let target = DPoPTarget(method: "POST", authority: "server.example.com", path: "/token")
        let url = "https://server.example.com/token"
        let cases: [(String, DPoPCheck?)] = [
            (key.proof("POST", url, at: now, header: ["extra": #","crit":null"#]), .malformed),
            (key.proof("POST", url, at: now, header: ["extra": #","crit":"exp""#]), .malformed),
            (key.proof("POST", url, at: now, header: ["jwk-extra": #","d":null"#]), .key),
            (key.proof("POST", url, at: now, header: ["whole": #"{"typ":"dpop+jwt","alg":"ES256","jwk":"EC"}"#]), .malformed),
            (key.proof("POST", url, at: now, claims: ["iat": "0"]), .malformed),
            (key.proof("POST", url, at: now, claims: ["ath": "null", "nonce": "null"]), nil),
            (key.proof("POST", url, at: now, claims: ["ath": "1"]), .malformed),
        ]
        for (proof, check) in cases {
            do {
                _ = try DPoPVerifier().verify(proof, for: target, accessToken: nil, at: now)
                #expect(check == nil, "accepted \(proof)")
            } catch {
                #expect(DPoPProofTests.check(of: { throw error }) == check, "\(proof)")
            }
        }
        // A null `ath` is no hash: refused where a token is presented.
        #expect(
            DPoPProofTests.check(of: {
                try DPoPVerifier().verify(key.proof("POST", url, at: now, claims: ["ath": "null"]), for: target, accessToken: "t", at: now)
            }) == .accessTokenHash)
    }

    /// `htu` read as bytes: the request's own URL in any case of scheme and host, a default port spelt or
    /// not, a query or fragment after it; nothing decoded, folded or guessed.
    @Test func htuNamesOnlyTheRequestsURL() {
        let target = DPoPTarget(method: "POST", authority: "server.example.com", path: "/token")
        for htu in [
            "https://server.example.com/token", "HTTPS://SERVER.EXAMPLE.COM/token", "http://server.example.com:80/token",
            "https://server.example.com:443/token?x=1", "https://server.example.com/token#f",
        ] {
            #expect(DPoPVerifier.names(htu, target), "\(htu)")
        }
        for htu in [
            "https://server.example.com/Token", "https://server.example.com/token/", "https://server.example.com", "https://server.example.com:/token",
            "https://server.example.com:444/token", "http://server.example.com:443/token", "https:/server.example.com/token",
            "https//server.example.com/token", "https://@server.example.com/token", "https://user@server.example.com/token",
            "https://server.example.com/%74oken", "https://server%2Eexample.com/token", "wss://server.example.com/token",
            "https://server.example.com\u{212A}/token", "https://server.example.co\u{1D5C6}/token", "", ":", "https://",
            "https://server.example.com/token" + String(repeating: "a", count: 1024), "https://server.example.com:443:443/token",
            "https://server.example.com:0443/token", "https://server.example.com./token", "https://server.example.com?/token",
            "https://server.example.com\t/token", "https://server.example.com\\@evil.example/token", "https://evil.example\\.server.example.com/token",
        ] {
            #expect(!DPoPVerifier.names(htu, target), "\(htu)")
        }
        // The request's authority is read the same way: its default port and its case do not matter.
        #expect(DPoPVerifier.names("https://h.example/token", DPoPTarget(method: "POST", authority: "H.Example:443", path: "/token")))
        #expect(DPoPVerifier.names("http://[::1]:8080/token", DPoPTarget(method: "POST", authority: "[::1]:8080", path: "/token")))
        #expect(DPoPVerifier.names("https://[::1]:443/token", DPoPTarget(method: "POST", authority: "[::1]", path: "/token")))
        // Another port than the default is part of the authority, spelt on both sides.
        #expect(DPoPVerifier.names("http://h.example:443/token", DPoPTarget(method: "POST", authority: "h.example:443", path: "/token")))
        #expect(!DPoPVerifier.names("http://h.example:443/token", DPoPTarget(method: "POST", authority: "h.example", path: "/token")))
    }
}
