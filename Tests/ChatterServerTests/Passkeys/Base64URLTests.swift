import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// base64url as WebAuthn's JSON forms send it (RFC 4648 §5, unpadded).
struct Base64URLTests {
    @Test func decodesTheURLAlphabetUnpaddedAndRefusesEverythingElse() {
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("-_8=") == nil, "padding")
        #expect(Base64URL.decode("=") == nil)
        #expect(Base64URL.decode("+/8") == nil, "the standard alphabet")
        #expect(Base64URL.decode("-_8 ") == nil)
        #expect(Base64URL.decode("-\u{301}_8") == nil, "a combining mark after a valid character")
    }

    /// WebAuthn's binary values as clients spell them: unpadded or padded base64url, standard base64; the same
    /// bytes whichever, and nothing looser (misplaced or excess padding, whitespace, line breaks, other bytes).
    @Test func aWebAuthnValueReadsInEverySpellingClientsSend() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x10]
        for spelling in ["-_-_ABA", "-_-_ABA=", "+/+/ABA=", "+/+/ABA"] {
            #expect(Base64URL.decodeAnySpelling(spelling) == bytes, "\(spelling)")
        }
        #expect(Base64URL.decodeAnySpelling("-_8=") == [0xFB, 0xFF])
        #expect(Base64URL.decodeAnySpelling("AA==") == [0])
        #expect(Base64URL.decodeAnySpelling("") == [])
        for refused in ["-_8==", "AA=", "AA===", "=", "==", "A=A", "-_ 8", "-_8\n", "-\u{301}_8", "AAAA====", "-_8=\u{0}"] {
            #expect(Base64URL.decodeAnySpelling(refused) == nil, "\(refused.debugDescription)")
        }
        #expect(Base64URL.decode("+/8=") == nil, "chatterd's own tokens keep one spelling")
    }

    @Test func encodesWhatItDecodes() {
        let bytes = (0...255).map(UInt8.init)
        let text = Base64URL.encode(bytes)
        #expect(!text.contains { "+/=".contains($0) })
        #expect(Base64URL.decode(text) == bytes)
    }
}
