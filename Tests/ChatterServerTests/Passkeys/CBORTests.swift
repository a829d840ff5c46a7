import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The CBOR decoder against RFC 8949 Appendix A's examples, and against what WebAuthn never sends.
@Suite struct CBORTests {
    static func bytes(_ hex: String) -> [UInt8] { WebAuthnVector.hex(hex) }

    /// RFC 8949 Appendix A: encoded bytes and the value each decodes to.
    static let appendixA: [(hex: String, value: CBOR)] = [
        ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("1bffffffffffffffff", .unsigned(.max)),
        ("20", .negative(0)), ("3863", .negative(99)), ("3bffffffffffffffff", .negative(.max)),
        ("f90000", .float(0)), ("f93c00", .float(1)), ("f97bff", .float(65504)), ("f90001", .float(5.960464477539063e-8)),
        ("f9c400", .float(-4)), ("fa47c35000", .float(100000)), ("fb3ff199999999999a", .float(1.1)), ("f97c00", .float(.infinity)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined),
        ("c074323031332d30332d32315432303a30343a30305a", .tagged(0, .text("2013-03-21T20:04:00Z"))),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6161", .text("a")),
        ("62c3bc", .text("ü")), ("63e6b0b4", .text("水")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("a0", .map([])),
        ("a201020304", .map([.init(key: .unsigned(1), value: .unsigned(2)), .init(key: .unsigned(3), value: .unsigned(4))])),
        ("a26161016162820203", .map([.init(key: .text("a"), value: .unsigned(1)), .init(key: .text("b"), value: .array([.unsigned(2), .unsigned(3)]))])),
    ]

    @Test(arguments: appendixA.indices)
    func theRFCsExamplesDecode(index: Int) throws {
        let (hex, value) = Self.appendixA[index]
        #expect(try CBORDecoder.decodeWhole(Self.bytes(hex)) == value, "\(hex)")
    }

    @Test func aNaNHalfDecodesToNaN() throws {
        guard case .float(let value) = try CBORDecoder.decodeWhole(Self.bytes("f97e00")) else {
            Issue.record("not a float")
            return
        }
        #expect(value.value.isNaN)
        // Found by fuzzing: a NaN compared with itself. It is one value, as a map key too.
        let item = try CBORDecoder.decodeWhole(Self.bytes("faffffffff"))
        #expect(item == item)
        #expect(throws: CBORError.duplicateKey) { try CBORDecoder.decodeWhole(Self.bytes("a2faffffffff00faffffffff01")) }
    }

    /// Appendix A's indefinite-length examples, and other things CTAP2's canonical form never contains.
    @Test(arguments: [
        ("5f42010243030405ff", CBORError.indefiniteLength), ("9fff", .indefiniteLength), ("bf61610161629f0203ffff", .indefiniteLength),
        ("ff", .indefiniteLength), ("1c", .reservedAdditionalInfo(28)), ("f820", .invalidSimpleValue(32)), ("f0", .invalidSimpleValue(16)),
        ("a201020103", .duplicateKey), ("62c328", .invalidUTF8), ("18", .truncated), ("4401", .truncated), ("820018", .truncated), ("8201", .tooLong),
        ("5bffffffffffffffff", .tooLong), ("9bffffffffffffffff", .tooLong), ("bb7fffffffffffffff", .tooLong),
        ("0000", .trailingBytes(1)),
    ])
    func whatWebAuthnNeverSendsIsRefused(hex: String, error: CBORError) {
        #expect(throws: error) { try CBORDecoder.decodeWhole(Self.bytes(hex)) }
    }

    @Test func nestingIsBounded() {
        let deep = [UInt8](repeating: 0x81, count: CBORDecoder.maximumDepth) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decodeWhole(deep) }
        let fine = [UInt8](repeating: 0x81, count: CBORDecoder.maximumDepth - 1) + [0x00]
        #expect(throws: Never.self) { try CBORDecoder.decodeWhole(fine) }
    }

    @Test func theFirstItemReportsTheBytesItTook() throws {
        // A COSE key followed by an extensions map, as authenticator data carries them.
        let (item, consumed) = try CBORDecoder.decodeFirst(Self.bytes("a1010ba0"))
        #expect(item == .map([.init(key: .unsigned(1), value: .unsigned(11))]))
        #expect(consumed == 3)
    }

    @Test func aCountLargerThanTheBytesLeftIsRefusedBeforeAllocating() {
        // 2^32 array members promised by 6 bytes.
        #expect(throws: CBORError.tooLong) { try CBORDecoder.decodeWhole(Self.bytes("9b0000000100000000")) }
    }
}
