import Crypto
import Synchronization
import Testing

@testable import ChatterServer

/// The filter may say "maybe" for a stranger, never "no" for a stored session.
@Suite struct AccessTokenFilterTests {
    static func hashes(_ n: Int, _ tag: String) -> [[UInt8]] {
        (0..<n).map { Array(SHA256.hash(data: Array("\(tag)-\($0)".utf8))) }
    }

    @Test func everyAddedHashPassesAndFewStrangersDo() {
        let filter = AccessTokenFilter(expecting: 50_000)
        let stored = Self.hashes(50_000, "stored")
        for hash in stored { filter.insert(hash) }
        #expect(stored.allSatisfy(filter.mightContain), "a stored session was refused")
        let strangers = Self.hashes(50_000, "stranger").filter(filter.mightContain).count
        #expect(strangers < 1_000, "\(strangers) of 50,000 unknown tokens would reach the database")
    }

    @Test func asksForARebuildOnlyWhenFull() {
        let filter = AccessTokenFilter(expecting: 0)  // 2^20 bits: full after 104,857 hashes
        let due = Self.hashes(110_000, "h").map { filter.insert($0) }
        #expect(due.prefix(104_857).allSatisfy { !$0 })
        #expect(due.suffix(1_000).allSatisfy { $0 })
    }

    @Test func rebuildDropsEndedSessionsAndKeepsThoseAddedMeanwhile() async throws {
        let filter = AccessTokenFilter(expecting: 10)
        let three = Self.hashes(3, "r")
        let (ended, kept, addedDuring) = (three[0], three[1], three[2])
        filter.insert(ended)
        filter.insert(kept)
        try await filter.rebuild(always: true, count: { 1 }, forEach: { add in
            add(kept)  // the table now holds only `kept`
            filter.insert(addedDuring)  // a sign-in committed while the table was being read
        })
        #expect(filter.mightContain(kept))
        #expect(filter.mightContain(addedDuring))
        #expect(!filter.mightContain(ended))
    }

    @Test func aFailedRebuildKeepsTheOldFilter() async throws {
        struct ReadFailed: Error {}
        let filter = AccessTokenFilter(expecting: 10)
        let hash = Self.hashes(1, "f")[0]
        filter.insert(hash)
        await #expect(throws: ReadFailed.self) {
            try await filter.rebuild(always: true, count: { 1 }, forEach: { _ in throw ReadFailed() })
        }
        #expect(filter.mightContain(hash))
        // And a later rebuild may run: the failed one did not leave itself marked as running.
        let ran = Mutex(false)
        try await filter.rebuild(always: true, count: { 0 }, forEach: { _ in ran.withLock { $0 = true } })
        #expect(ran.withLock { $0 })
    }

    @Test func aShortHashIsLeftToTheDatabase() {
        #expect(AccessTokenFilter(expecting: 1).mightContain([1, 2, 3]))
    }
}
