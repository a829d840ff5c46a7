import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `Hex.encode` replaced `String(format: "%02x")` per byte in CSRF tokens, device keys and digests: the same text.
@Suite struct HexTests {
    @Test func encodingWritesWhatFormatWroteAndDecodesBack() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 16, 32, 33, 64] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Hex.encode(bytes)
            #expect(text == bytes.map { String(format: "%02x", $0) }.joined())
            #expect(Hex.decode(text) == bytes)
        }
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
    }
}
