import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// chatterd formats and parses stored IDs itself (Foundation's use `sprintf` and `sscanf`): the text must be
/// `uuidString`'s exactly, since IDs already stored were written by it, and parsing takes the canonical form
/// only (`sscanf` also lets spaces and signs through).
@Suite struct UUIDTextTests {
    @Test func formatsAsUUIDStringDoes() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(id.text == id.uuidString)
            #expect(UUID(text: id.text) == id)
            #expect(UUID(text: id.uuidString.lowercased()) == id)
        }
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        ]
        for id in edges { #expect(id.text == id.uuidString && UUID(text: id.text) == id) }
    }

    @Test func parsesTheCanonicalFormOnly() {
        let good = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let malformed = [
            "", "E621E1F8", good + "0", String(good.dropLast()), good.replacingOccurrences(of: "-", with: ""),
            "E621E1F8C36C-495A-93FC-0C247A3E6E5F0", "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC_0C247A3E6E5F",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5\u{e9}", " 621E1F8-C36C-495A-93FC-0C247A3E6E5F", "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}",
        ]
        #expect(UUID(text: good) == UUID(uuidString: good))
        for text in malformed {
            #expect(UUID(text: text) == nil, "\(text)")
        }
        // One character of a valid ID changed: accepted exactly when hex digits stay hex digits and hyphens
        // hyphens, and then the same ID Foundation reads.
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFgG-_ x\u{0}")
        for _ in 0..<2000 {
            var characters = Array(UUID().uuidString)
            characters[Int.random(in: 0..<36, using: &generator)] = alphabet.randomElement(using: &generator)!
            let text = String(characters)
            let canonical = characters.enumerated().allSatisfy { index, character in
                [8, 13, 18, 23].contains(index) ? character == "-" : character.isHexDigit
            }
            #expect(UUID(text: text) == (canonical ? UUID(uuidString: text) : nil), "\(text)")
            if canonical { #expect(UUID(text: text) != nil) }
        }
    }
}
