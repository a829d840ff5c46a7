import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import ChatterKit

/// The web view's decisions (F3) without WebKit: what `WebSessionView` loads, opens in the browser or cancels,
/// and the pin check it shares with `PinnedSessionDelegate`.
@Suite struct WebNavigationPolicyTests {
    let policy = WebNavigationPolicy(server: URL(string: "https://chatter.example.com")!)

    /// Every frame a navigation can target: the main frame, a subframe, a new window.
    static let frames: [Bool?] = [true, false, nil]

    @Test func chatterdsOwnPagesLoadInEveryFrame() {
        for page in ["https://chatter.example.com/", "https://chatter.example.com/account?tab=1", "HTTPS://Chatter.Example.COM:443/x"] {
            for frame in Self.frames {
                for userInitiated in [true, false] {
                    #expect(
                        policy.decide(URL(string: page)!, isMainFrame: frame, userInitiated: userInitiated) == .load, "\(page) \(String(describing: frame))")
                }
            }
        }
    }

    @Test func anOffSiteSubframeNeverOpensOutside() {
        for page in ["https://evil.test/", "https://accounts.google.com/gsi/button", "http://chatter.example.com/"] {
            for userInitiated in [true, false] {
                #expect(policy.decide(URL(string: page)!, isMainFrame: false, userInitiated: userInitiated) == .cancel, "\(page)")
            }
        }
    }

    @Test func aTapOnAnOffSiteLinkOpensOutside() {
        let link = URL(string: "https://example.org/help")!
        #expect(policy.decide(link, isMainFrame: true, userInitiated: true) == .openOutside)
        #expect(policy.decide(link, isMainFrame: nil, userInitiated: true) == .openOutside, "target=_blank")
    }

    @Test func anOffSiteNavigationTheUserDidNotStartIsCancelled() {
        let elsewhere = URL(string: "https://evil.test/phish")!
        #expect(policy.decide(elsewhere, isMainFrame: true, userInitiated: false) == .cancel, "a script or a redirect")
        #expect(policy.decide(elsewhere, isMainFrame: nil, userInitiated: false) == .cancel, "window.open without a tap")
    }

    @Test func otherSchemesAreCancelledEvenWhenTapped() {
        let urls = [
            "javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
            "blob:https://chatter.example.com/6c1d", "about:blank", "mailto:ada@example.com", "ftp://chatter.example.com/",
        ]
        for string in urls {
            let url = URL(string: string)
            #expect(url != nil, "\(string)")
            for frame in Self.frames {
                for userInitiated in [true, false] {
                    #expect(policy.decide(url, isMainFrame: frame, userInitiated: userInitiated) == .cancel, "\(string)")
                }
            }
        }
        #expect(policy.decide(nil, isMainFrame: true, userInitiated: true) == .cancel, "no URL, nothing to load")
    }

    @Test func lookAlikesAreOtherSites() {
        let lookAlikes = [
            "https://chatter.example.com.evil.test/",  // the server's host as a prefix
            "https://evilchatter.example.com/", "https://sub.chatter.example.com/",
            "https://chatter.example.com:8443/",  // another port
            "http://chatter.example.com/",  // http for an https server
            "https://chatter.example.com./",  // a trailing dot
            "https://chatter.example.com@evil.test/",  // user info, the host is evil.test
            "https://ch\u{430}tter.example.com/",  // a Cyrillic а (IDN look-alike)
            "https://xn--chtter-4nf.example.com/",  // the same, as punycode
        ]
        for string in lookAlikes {
            guard let url = URL(string: string) else { continue }  // a URL Foundation refuses never loads
            #expect(!policy.isSameOrigin(url), "\(string)")
            #expect(policy.decide(url, isMainFrame: false, userInitiated: true) == .cancel, "\(string)")
            #expect(policy.decide(url, isMainFrame: true, userInitiated: true) == .openOutside, "\(string)")
        }
    }

    @Test func onlyASCIILettersAreLowered() {
        // String.lowercased() turns the Kelvin sign (U+212A) into `k`: a host spelled with it would equal one with `k`.
        // (Foundation's URL parser maps such hosts the way WebKit does, IDNA; the comparison adds no folding of its own.)
        #expect("\u{212A}".lowercased() == "k")
        #expect(WebNavigationPolicy.asciiLowercased("ban\u{212A}.example") == "ban\u{212A}.example")
        #expect(WebNavigationPolicy.asciiLowercased("Chatter.EXAMPLE.com") == "chatter.example.com")
    }

    @Test func defaultPortsAndAServerWithoutAHost() {
        let local = WebNavigationPolicy(server: URL(string: "http://localhost:8080")!)
        #expect(local.isSameOrigin(URL(string: "http://LOCALHOST:8080/account")!))
        #expect(!local.isSameOrigin(URL(string: "http://localhost/")!))
        #expect(!local.isSameOrigin(URL(string: "https://localhost:8080/")!))
        let plain = WebNavigationPolicy(server: URL(string: "http://chatter.example.com/")!)
        #expect(plain.isSameOrigin(URL(string: "http://chatter.example.com:80/")!))
        let hostless = WebNavigationPolicy(server: URL(string: "file:///tmp/")!)
        #expect(hostless.decide(URL(string: "file:///tmp/x")!, isMainFrame: true, userInitiated: true) == .cancel)
        #expect(hostless.decide(URL(string: "https://example.org/")!, isMainFrame: true, userInitiated: true) == .openOutside)
    }

    // MARK: pins

    /// The pin chatterd prints and the `chatter` tool checks: base64 SHA-256 of the DER SubjectPublicKeyInfo.
    static func pin(spki: some DataProtocol) -> String {
        Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    @Test func thePinFunctionAcceptsTheRightKeyAndRefusesAnother() throws {
        let p256 = P256.Signing.PrivateKey().publicKey
        let other = P256.Signing.PrivateKey().publicKey
        let pins: Set<String> = [Self.pin(spki: p256.derRepresentation)]
        let raw = [UInt8](p256.x963Representation)
        #expect(ServerKeyPin.pin(type: .ellipticCurve, bits: 256, rawKey: raw) == Self.pin(spki: p256.derRepresentation))
        #expect(ServerKeyPin.accepts(type: .ellipticCurve, bits: 256, rawKey: raw, pins: pins))
        #expect(!ServerKeyPin.accepts(type: .ellipticCurve, bits: 256, rawKey: [UInt8](other.x963Representation), pins: pins), "another key")
        #expect(!ServerKeyPin.accepts(type: .ellipticCurve, bits: 384, rawKey: raw, pins: pins), "the right bytes under another size")
        #expect(!ServerKeyPin.accepts(type: .rsa, bits: 2048, rawKey: raw, pins: pins), "the right bytes as another type")
        #expect(!ServerKeyPin.accepts(type: .ellipticCurve, bits: 256, rawKey: raw, pins: []), "no pins accept nothing")
    }

    @Test func p384AndRSA2048PinsMatchTheirSubjectPublicKeyInfo() throws {
        let p384 = P384.Signing.PrivateKey().publicKey
        #expect(ServerKeyPin.pin(type: .ellipticCurve, bits: 384, rawKey: [UInt8](p384.x963Representation)) == Self.pin(spki: p384.derRepresentation))
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey
        let pins: Set<String> = [Self.pin(spki: rsa.derRepresentation)]
        #expect(ServerKeyPin.accepts(type: .rsa, bits: 2048, rawKey: [UInt8](rsa.pkcs1DERRepresentation), pins: pins))
        let rsa4096 = try _RSA.Signing.PrivateKey(keySize: .bits4096).publicKey
        #expect(ServerKeyPin.pin(type: .rsa, bits: 4096, rawKey: [UInt8](rsa4096.pkcs1DERRepresentation)) == nil, "no pin can match RSA-4096")
    }
}
