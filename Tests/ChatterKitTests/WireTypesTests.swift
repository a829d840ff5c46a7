import ChatterKit
import Foundation
import Testing

/// The wire shapes course clients depend on, as the SDK sees them.
@Suite struct WireTypesTests {
    @Test func chattRowIsAFourElementArray() throws {
        let row = ChattRow(name: "Ada", message: "hi", id: "6F9619FF-8B86-D011-B42D-00CF4FC964FF", time: "2026-11-22T17:00:00.000Z")
        let json = String(decoding: try JSONEncoder().encode(row), as: UTF8.self)
        #expect(json == #"["Ada","hi","6F9619FF-8B86-D011-B42D-00CF4FC964FF","2026-11-22T17:00:00.000Z"]"#)
        #expect(try JSONDecoder().decode(ChattRow.self, from: Data(json.utf8)) == row)
    }

    @Test func addUserResponseUsesTheCourseFieldNames() throws {
        let object =
            try JSONSerialization.jsonObject(
                with: JSONEncoder().encode(AddUserResponse(username: "Ada", chatterID: "abc", lifetime: 60))) as? [String: Any]
        #expect(Set(object?.keys ?? [:].keys) == ["username", "chatterID", "lifetime"])
    }

    @Test func shortRowIsRejected() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ChattRow.self, from: Data(#"["Ada","hi"]"#.utf8)) }
    }
}
