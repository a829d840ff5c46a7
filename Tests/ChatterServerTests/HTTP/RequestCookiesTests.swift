import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `CookieHeader` reads the cookies Hummingbird's `request.cookies` read before, byte by byte.
@Suite struct RequestCookiesTests {
    static func request(_ fields: [String]) -> Request {
        var headers = HTTPFields()
        for field in fields { headers.append(HTTPField(name: .cookie, value: field)) }
        return Request(
            head: HTTPRequest(method: .get, scheme: "https", authority: "chatter.example", path: "/", headerFields: headers),
            body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func findsTheFirstCookieOfThatNameInEveryFieldAsBrowsersSendThem() {
        let request = Self.request(["a=1; __Host-chatter-browser=abc; b=2", "__Host-chatter-session=tok=en; __Host-chatter-browser=later"])
        #expect(request.cookie("__Host-chatter-browser") == "abc")
        #expect(request.cookie("__Host-chatter-session") == "tok=en", "the value is everything after the first =")
        #expect(request.cookie("a") == "1")
        #expect(request.cookie("b") == "2")
        #expect(request.cookie("c") == nil)
        #expect(Self.request([]).cookie("a") == nil)
    }

    @Test func namesMatchWholeAndExactly() {
        let request = Self.request(["x__Host-chatter-session=1;__Host-chatter-sessionx=2; __host-chatter-session=3;\t __Host-chatter-session=4"])
        #expect(
            request.cookie("__Host-chatter-session") == "4", "neither a prefix, a suffix nor another case matches; tabs and spaces before a name are skipped")
        #expect(Self.request(["flag; a"]).cookie("a") == nil, "a pair needs its =")
        #expect(CookieHeader.value(named: "a", inField: "a=; b=2") == "", "an empty value is a value (RFC 6265 §5.2)")
        #expect(Self.request(["a=; b=2"]).cookie("a") == nil, "but no cookie of chatterd's means anything empty")
        #expect(Self.request(["a==1"]).cookie("a") == "=1")
        #expect(Self.request(["a =1"]).cookie("a") == nil, "a space before = belongs to the name")
    }

    /// A sibling subdomain may set a cookie whose name only looks like `__Host-chatter-session` after a Unicode
    /// space (browsers apply the prefix's rules only to names that start with it); Hummingbird skipped such
    /// spaces, so with a longer path that cookie came first and was read as the session.
    @Test func onlyASCIISpaceAndTabComeBeforeAName() {
        for space in ["\u{A0}", "\u{2000}", "\u{3000}", "\u{85}", "\u{FEFF}"] {
            let request = Self.request(["\(space)__Host-chatter-session=planted; __Host-chatter-session=own"])
            #expect(request.cookie("__Host-chatter-session") == "own", "U+\(String(space.unicodeScalars.first!.value, radix: 16))")
            #expect(Self.request(["\(space)__Host-chatter-session=planted"]).cookie("__Host-chatter-session") == nil)
        }
        #expect(Self.request([" \t __Host-chatter-session=own"]).cookie("__Host-chatter-session") == "own")
    }

    @Test func aCombiningMarkAfterTheSeparatorDoesNotHideTheNextCookie() {
        // Hummingbird splits at `Character`s, so `;` with U+0301 after it was no boundary at all.
        let request = Self.request(["a=1;\u{301}b=2; c=3"])
        #expect(request.cookie("c") == "3")
        #expect(request.cookie("\u{301}b") == "2", "the mark starts the next name, which is not b")
        #expect(request.cookie("b") == nil)
    }

    /// RFC 6265's reading, written plainly: the first pair called `name`, its value everything after the first `=`.
    static func rfcReading(_ fields: [String], _ name: String) -> String? {
        for field in fields {
            for pair in field.split(separator: ";", omittingEmptySubsequences: false) {
                let pair = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = pair.firstIndex(of: "=") else { continue }
                if pair[..<equals] == name { return String(pair[pair.index(after: equals)...]) }
            }
        }
        return nil
    }

    /// Random fields of the bytes cookies are made of (printable ASCII, spaces, tabs, `;` and `=` often), read
    /// by both: the RFC's answer for every name they mention, and Hummingbird's wherever it keeps to the RFC.
    @Test func readsEveryASCIIFieldAsTheRFCAndHummingbirdDo() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab=; \t=;\"=,_-") + (0x21...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
        var compared = 0
        for _ in 0..<3_000 {
            let fields = (0..<Int.random(in: 1...2, using: &generator)).map { _ in
                String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            }
            let request = Self.request(fields)
            var names: Set<String> = ["a", "b", "ab", ""]
            for field in fields {
                for pair in field.split(separator: ";") {
                    names.insert(String(pair.drop { $0 == " " || $0 == "\t" }.prefix { $0 != "=" }))
                }
            }
            for name in names {
                // As HTTP keeps them: a field's value loses its outer spaces and tabs.
                let rfc = Self.rfcReading(request.headers[values: .cookie], name)
                #expect(CookieHeader.value(named: name, in: request.headers) == rfc, "\(fields) \(name)")
                // Hummingbird reads an empty value as no cookie, and skips the `=`s that start a value or a pair.
                if !name.isEmpty, let rfc, !rfc.isEmpty, !rfc.hasPrefix("=") {
                    #expect(request.cookie(name) == request.cookies[name]?.value, "\(fields) \(name)")
                    compared += 1
                }
            }
        }
        #expect(compared > 1_000)
    }
}
