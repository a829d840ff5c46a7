import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Chatts get version 7 UUIDs, so a burst of posts appends to the id index instead of touching a random
/// page of it per post.
@Suite struct ChattIDTests {
    @Test func chattIDsAreVersion7AndSortByTime() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let ids = (0..<1000).map { Chatt(name: "n", message: "m", time: start.addingTimeInterval(Double($0) / 100), userID: nil).id }
        for id in ids {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 7, "version 7")
            #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
            // The first 48 bits are the milliseconds of the chatt's time.
            let milliseconds = bytes.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(milliseconds / 1000 >= 1_800_000_000 && milliseconds / 1000 < 1_800_000_010)
        }
        // Times 10 ms apart: the ids sort as the times do (as strings too, which is how SQLite stores them).
        #expect(ids.map(\.uuidString) == ids.map(\.uuidString).sorted())
        #expect(Set(ids).count == ids.count)
        let explicit = UUID()
        #expect(Chatt(id: explicit, name: "n", message: "m", time: start, userID: nil).id == explicit)
    }
}
