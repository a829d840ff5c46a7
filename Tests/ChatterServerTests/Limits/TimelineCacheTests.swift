import ChatterTestSupport
import Foundation
import NIOCore
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A real store that counts how often the whole timeline is read: what the course list's cache spares.
final class CountedChatts: ChattRepository {
    let base: any ChattRepository
    let wholeReads = Atomic<Int>(0)

    init(_ base: any ChattRepository) { self.base = base }

    func forEachChatt(_ body: @escaping @Sendable (Chatt) -> Void) async throws {
        wholeReads.add(1, ordering: .relaxed)
        try await base.forEachChatt(body)
    }

    func addChatt(_ chatt: Chatt) async throws { try await base.addChatt(chatt) }
    func chatts(before: UUID?, limit: Int) async throws -> [Chatt] { try await base.chatts(before: before, limit: limit) }
    func chattCount() async throws -> Int { try await base.chattCount() }
    func timelineStamp() async throws -> TimelineStamp { try await base.timelineStamp() }
    var timelineStampIsInMemory: Bool { base.timelineStampIsInMemory }
}

/// Many `/getchatts` at once share one answer, built once after each post (docs/threat-model.md, "Many
/// `/getchatts` requests on a large timeline").
@Suite struct TimelineCacheTests {
    @Test func manyListRequestsAtOnceReadTheTimelineOncePerPost() async throws {
        try await withTemporaryDirectory { dir in
            let store = try await SQLiteStore.open(path: dir + "/chatterd.sqlite")
            let counted = CountedChatts(store)
            let timeline = Timeline(store: counted)
            for round in 1...3 {
                try await timeline.post(try Timeline.Draft(message: "post \(round)", name: "Ada"), by: nil)
                let before = counted.wholeReads.load(ordering: .relaxed)
                let answers = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
                    for _ in 0..<200 { group.addTask { try await timeline.courseJSON() } }
                    return try await group.reduce(into: [ByteBuffer]()) { $0.append($1) }
                }
                #expect(counted.wholeReads.load(ordering: .relaxed) - before == 1, "200 requests after post \(round) read the whole timeline once")
                #expect(Set(answers.map { Array($0.readableBytesView) }).count == 1, "every request got the same answer")
                let rows = try JSONDecoder().decode([[String?]].self, from: Data(answers[0].readableBytesView))
                #expect(rows.count == round, "the answer has post \(round)")
            }
            try await store.close()
        }
    }
}
