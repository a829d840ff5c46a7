import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Testing
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Every parser of untrusted bytes does work in proportion to its input: its worst case at the size limit
/// (64 KiB bodies, so 48 KiB of CBOR in base64url) costs at most `slack` times what a sixteenth of it
/// costs, sixteen-fold. A quadratic parser (CBOR's duplicate-key check was one: a 48 KiB map took 2 s of a
/// release build's CPU, before any signature) costs 256 times as much there.
///
/// The work is this thread's CPU time, the least of five runs: not wall time, which a busy machine
/// stretches, and not instructions, which these machines' virtualised CPUs do not count (`perf stat -e
/// instructions` answers "not supported"). A sixteenth's run and the whole's run share the same thread and
/// the same moment, and the bound is three times the linear ratio.
@Suite struct ParserWorkTests {
    static let limit = Limits.bodyBytes

    /// This thread's CPU time for `work`, the least of `runs`, in nanoseconds.
    static func cpuTime(runs: Int = 5, _ work: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            var start = timespec()
            var end = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
            try work()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
            best = min(best, Double(end.tv_sec - start.tv_sec) * 1e9 + Double(end.tv_nsec - start.tv_nsec))
        }
        return best
    }

    /// Expects `parse` of the `size`-byte input `make` builds to cost at most `slack` × 16 times its cost on
    /// a sixteenth of that size, or under 50 µs in all (refused before any work).
    static func expectLinear(
        _ make: (Int) -> [UInt8], size: Int = limit, slack: Double = 3, sourceLocation: SourceLocation = #_sourceLocation,
        _ parse: ([UInt8]) throws -> Void
    ) rethrows {
        let small = make(size / 16)
        let large = make(size)
        #expect(large.count <= size && large.count > size * 3 / 4, "the worst case is at the size limit: \(large.count) bytes", sourceLocation: sourceLocation)
        try parse(small)  // warm: the first call pays for lazy initialisation
        let smallTime = try cpuTime { try parse(small) }
        let largeTime = try cpuTime { try parse(large) }
        let ratio = largeTime / max(smallTime, 1)
        // Under 50 µs for the whole, the parser refused early (a length checked first): nothing to compare.
        #expect(
            ratio <= 16 * slack || largeTime < 50_000, "16× the input cost \(Int(ratio))× the work (\(Int(smallTime / 1000)) µs → \(Int(largeTime / 1000)) µs)",
            sourceLocation: sourceLocation)
    }

    // MARK: CBOR

    /// One map of distinct unsigned keys, each to null, filling `size` bytes: every key is compared, or hashed.
    static func wideMap(_ size: Int) -> [UInt8] {
        let count = (size - 5) / 4
        return CBOREncoder.head(5, UInt64(count)) + (0..<count).flatMap { CBOREncoder.head(0, UInt64(1000 + $0)) + [0xF6] }
    }

    /// Distinct text keys that share a long prefix, so comparing two costs their length.
    static func longKeyMap(_ size: Int) -> [UInt8] {
        let keyLength = 60
        let count = (size - 5) / (keyLength + 3)
        return CBOREncoder.head(5, UInt64(count))
            + (0..<count).flatMap { index -> [UInt8] in
                let text = String(repeating: "k", count: keyLength - 8) + String(format: "%08d", index)
                return CBOREncoder.head(3, UInt64(keyLength)) + Array(text.utf8) + [0xF6]
            }
    }

    /// An array of many small maps nested as deep as allowed.
    static func nestedArrays(_ size: Int) -> [UInt8] {
        let unit: [UInt8] = CBOREncoder.head(4, 1) + CBOREncoder.head(4, 1) + CBOREncoder.head(5, 1) + [0x01, 0xF6]
        let count = (size - 5) / unit.count
        return CBOREncoder.head(4, UInt64(count)) + (0..<count).flatMap { _ in unit }
    }

    @Test func cborMapsWithManyKeysCostWhatTheirBytesDo() throws {
        for make in [Self.wideMap, Self.longKeyMap, Self.nestedArrays] {
            try Self.expectLinear(make, size: Self.limit * 3 / 4) { bytes in _ = try CBORDecoder.decodeWhole(bytes) }
        }
    }

    /// The same maps inside what an authenticator sends: an assertion's authenticator data with ED set and the
    /// map as its extensions, decoded as the passkey routes decode it.
    @Test func authenticatorDataExtensionsCostWhatTheirBytesDo() throws {
        try Self.expectLinear({ size in Array(repeating: 0, count: 32) + [0x85] + [0, 0, 0, 0] + Self.wideMap(size - 37) }, size: Self.limit * 3 / 4) {
            bytes in
            _ = try AuthenticatorData(bytes)
        }
    }

    /// A credential's COSE key with every label it needs last, after thousands it does not: each needed label
    /// is looked up once through the map.
    @Test func coseKeysCostWhatTheirBytesDo() {
        let key = P256.Signing.PrivateKey().publicKey.x963Representation
        let make: (Int) -> [UInt8] = { size in
            let x: [UInt8] = Array(key[1...32])
            let y: [UInt8] = Array(key[33...64])
            var needed: [(CBOREncoder.Item, CBOREncoder.Item)] = [(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1))]
            needed.append((.int(-2), .bytes(x)))
            needed.append((.int(-3), .bytes(y)))
            let extra = (0..<((size - 90) / 4)).map { index -> (CBOREncoder.Item, CBOREncoder.Item) in (.int(1000 + index), .raw([0xF6])) }
            return CBOREncoder.map(extra + needed)
        }
        Self.expectLinear(make, size: Self.limit * 3 / 4) { bytes in _ = try? COSEKey(encoded: bytes) }
    }

    /// An attestation statement's `x5c` at its limit: eight certificates, each as large as the size allows
    /// (thousands of names in its subject alternative name), parsed and their names walked.
    @Test func attestationCertificatesCostWhatTheirBytesDo() throws {
        let signer = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("attestation") }
        func certificate(names: Int) throws -> [UInt8] {
            let alternatives = SubjectAlternativeNames((0..<names).map { GeneralName.dnsName("n\($0).example") })
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(signer.publicKey), notValidBefore: Date(timeIntervalSince1970: 0),
                notValidAfter: Date(timeIntervalSince1970: 4_000_000_000), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions { alternatives }, issuerPrivateKey: .init(signer))
            return try certificate.serializeAsPEM().derBytes
        }
        let make: (Int) -> [UInt8] = { size in
            let der = try! certificate(names: max(1, (size / 8 - 360) / 17))
            return CBOREncoder.map([(.text("x5c"), .raw([0x88] + Array(repeating: CBOREncoder.encode(.bytes(der)), count: 8).flatMap { $0 }))])
        }
        // swift-certificates parses extensions when asked: walking each certificate's names is the work TPM's
        // and SafetyNet's checks do.
        try Self.expectLinear(make, size: Self.limit * 3 / 4) { bytes in
            for certificate in try AttestationStatement.certificates(try CBORDecoder.decodeWhole(bytes)) {
                _ = try certificate.extensions.subjectAlternativeNames.map(Array.init)
            }
        }
    }

    // MARK: Text the clients send

    /// A JSON body of many keys, as a passkey response with a huge `clientExtensionResults`.
    @Test func jsonBodiesCostWhatTheirBytesDo() {
        let make: (Int) -> [UInt8] = { size in
            let count = (size - 200) / 14
            let fields = (0..<count).map { #""k\#(String(format: "%08d", $0))":0"# }.joined(separator: ",")
            return Array(
                #"{"credential":{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"AA","attestationObject":"AA"},"clientExtensionResults":{\#(fields)}}}"#
                    .utf8)
        }
        Self.expectLinear(make) { bytes in _ = try? JSONDecoder().decode(PasskeyRegistrationRequest.self, from: Data(bytes)) }
    }

    /// A page's form with many fields, many repeats of one field, and keys nested as deep as brackets go.
    @Test func formsCostWhatTheirBytesDo() {
        struct Form: Decodable {
            let csrf: String?
            let code: String?
        }
        let many: (Int) -> [UInt8] = { size in Array((0..<(size / 14)).map { "f\(String(format: "%08d", $0))=1" }.joined(separator: "&").utf8) }
        let repeated: (Int) -> [UInt8] = { size in Array(Array(repeating: "code[]=123456", count: size / 14).joined(separator: "&").utf8) }
        for make in [many, repeated] {
            Self.expectLinear(make) { bytes in _ = try? URLEncodedFormDecoder().decode(Form.self, from: String(decoding: bytes, as: UTF8.self)) }
        }
    }

    @Test func cookieHeadersCostWhatTheirBytesDo() {
        let make: (Int) -> [UInt8] = { size in Array((0..<(size / 16)).map { "c\(String(format: "%08d", $0))=v;" }.joined(separator: " ").utf8) }
        Self.expectLinear(make, size: 16 * 1024) { bytes in
            _ = CookieHeader.value(named: SessionAuthenticator.cookieName, inField: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// What the second step reads from a body: a code typed with every separator it forgives, a recovery code.
    @Test func secondFactorCodesCostWhatTheirBytesDo() {
        let typed: (Int) -> [UInt8] = { size in Array(String(repeating: "1 2-", count: size / 4).utf8) }
        for make in [typed, { size in Array(String(repeating: "AB-", count: size / 3).utf8) }] {
            Self.expectLinear(make) { bytes in
                let text = String(decoding: bytes, as: UTF8.self)
                _ = TOTP.normalized(text)
                _ = RecoveryCode.normalized(text)
            }
        }
    }

    /// Addresses as a body carries them, before any limit on their length is known to hold.
    @Test func emailAddressesCostWhatTheirBytesDo() {
        let make: (Int) -> [UInt8] = { size in Array((String(repeating: "a.", count: size / 4) + "@" + String(repeating: "b.", count: size / 4 - 2) + "c").utf8)
        }
        Self.expectLinear(make) { bytes in _ = EmailAddress.normalize(String(decoding: bytes, as: UTF8.self)) }
    }

    /// Client data JSON at its own limit (4 KiB, refused above it before parsing).
    @Test func clientDataCostsWhatItsBytesDo() {
        let make: (Int) -> [UInt8] = { size in
            let padding = String(repeating: "\\u0041", count: (size - 120) / 6)
            return Array(#"{"type":"webauthn.get","challenge":"AAAA","origin":"https://example.org","x":"\#(padding)"}"#.utf8)
        }
        Self.expectLinear(make, size: ClientData.maximumBytes) { bytes in _ = ClientData.parse(bytes) }
        #expect(ClientData.parse(Array(repeating: UInt8(ascii: " "), count: ClientData.maximumBytes + 1)) == nil, "over the limit: not parsed")
    }

    @Test func base64URLCostsWhatItsBytesDo() {
        Self.expectLinear({ size in Array(repeating: UInt8(ascii: "A"), count: size) }) { bytes in
            _ = Base64URL.decode(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// A DPoP proof's JSON (a proof is at most 2 KiB; the reader is held to the same bound at 64 KiB): many
    /// members, each name checked against the others, a string of escapes, a long number, a long name.
    @Test func proofJSONCostsWhatItsBytesDo() {
        let members: (Int) -> [UInt8] = { size in Array(("{" + (0..<size / 12).map { #""m\#($0)":0"# }.joined(separator: ",") + "}").utf8) }
        let escapes: (Int) -> [UInt8] = { size in Array((#"{"s":""# + String(repeating: #"\u00e9"#, count: size / 6 - 2) + #""}"#).utf8) }
        // A number of 64 KiB (it reads as 0.1: finite, not an underflow), and a name of combining accents (hashed as
        // Swift strings are).
        let digits: (Int) -> [UInt8] = { size in Array((#"{"n":0.1"# + String(repeating: "0", count: size - 16) + "}").utf8) }
        let accents: (Int) -> [UInt8] = { size in Array(("{\"e" + String(repeating: "\u{0301}", count: size / 2 - 8) + "\":1}").utf8) }
        for make in [members, escapes, digits, accents] {
            #expect(ProofJSON.object(make(Self.limit)) != nil, "the worst case is read, not refused early")
            Self.expectLinear(make) { bytes in _ = ProofJSON.object(bytes) }
        }
    }
}
