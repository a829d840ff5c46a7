import Testing

@testable import ChatterServer

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

    @Test func encodesWhatItDecodes() {
        let bytes = (0...255).map(UInt8.init)
        let text = Base64URL.encode(bytes)
        #expect(!text.contains { "+/=".contains($0) })
        #expect(Base64URL.decode(text) == bytes)
    }
}
