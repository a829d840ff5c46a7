import ChatterCore
import ChatterWire
import Crypto
import Foundation
import NIOCore
import Synchronization

/// Why the timeline refused a post or a page request.
public enum TimelineError: Error, Equatable {
    /// `/postchatt` while anonymous posting is off.
    case anonymousPostingDisabled
    /// A page post with nothing but white space.
    case emptyMessage
    /// A page size outside 1...`Timeline.maximumPage`.
    case invalidLimit
    /// A `before` that is not a chatt id.
    case invalidCursor
}

/// The chatt timeline. Its three most frequent answers — the course API's full list and the native API's
/// newest page, as encoded JSON, and the newest chatts the timeline page shows — are cached: they change
/// only when a chatt is posted or deleted. This process's posts drop them at once; for writes by other
/// instances or processes, each answer first compares the store's `timelineStamp()` with the one seen last.
package final class Timeline: Sendable {
    package static let defaultPage = 50
    package static let maximumPage = 200

    let store: any ChattRepository
    package let now: @Sendable () -> Date
    private let course: SingleFlightCache<ByteBuffer>
    private let newestPage: SingleFlightCache<ByteBuffer>
    private let newestChatts: SingleFlightCache<[Chatt]>
    private let lastStamp = Mutex<TimelineStamp?>(nil)
    /// Concurrent answers share stamp reads: each waits for a read that began after it arrived (so it sees
    /// every write committed before it). Two reads may overlap, so an answer waits at most one round trip
    /// (not the rest of the running read and then a whole one), and a busy server still reads the stamp
    /// about twice per round trip, not once per request.
    private let stamps: BatchingLookup<Int, TimelineStamp>

    package init(store: any ChattRepository, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
        stamps = BatchingLookup(maximumBatch: .max, maximumFetchers: 2) { _ in
            [0: try await store.timelineStamp()]
        }
        course = SingleFlightCache {
            // The buffer grows by `realloc`, which moves a block this large by remapping its pages, not copying them.
            let list = CourseList(capacity: 64 * 1024)
            try await store.forEachChatt { list.append($0) }
            return list.finish()
        }
        newestPage = SingleFlightCache { try await Self.page(store, before: nil, limit: Self.defaultPage) }
        newestChatts = SingleFlightCache { try await store.chatts(before: nil, limit: Self.defaultPage) }
    }

    /// A post that passed the limits. Made first, so a request is refused for its text before anything else
    /// about it is looked at (`/postauth` refuses a long message before it reads the chatterID).
    package struct Draft: Sendable {
        package let message: String
        /// The name an anonymous post goes under (`/postchatt`); a signed-in author's own otherwise.
        package let name: String?

        package init(message: String, name: String? = nil) throws {
            if let name, name.exceeds(Limits.nameCharacters) { throw InvalidInput.tooLong(field: "name", limit: Limits.nameCharacters) }
            if message.exceeds(Limits.messageCharacters) { throw InvalidInput.tooLong(field: "message", limit: Limits.messageCharacters) }
            self.message = message
            self.name = name
        }

        /// A page post: trimmed, and refused when nothing is left.
        package init(page message: String) throws {
            let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw TimelineError.emptyMessage }
            try self.init(message: trimmed)
        }
    }

    /// `draft` as a chatt by `author` (a signed-in user), or under the draft's name when posted anonymously.
    /// A post whose author was deleted while it ran is the client's bad luck, a `SessionError.accountGone`.
    ///
    /// `key`, when given, names this post across repeats (a form sent twice by a double click, a retry after
    /// a lost answer): the chatt's id is derived from it and the author, and the store leaves out an id it
    /// already has, so the post is made once however many times it arrives, at once or later.
    @discardableResult
    package func post(_ draft: Draft, by author: User?, key: String? = nil) async throws -> Chatt {
        let id = key.map { Self.chattID(forKey: $0, author: author?.id) }
        let chatt = Chatt(id: id, name: author?.displayName ?? draft.name ?? "", message: draft.message, time: now(), userID: author?.id)
        do {
            try await ChatterMetrics.database("add_chatt") { try await store.addChatt(chatt) }
        } catch StoreError.userGone {
            throw SessionError.accountGone
        }
        invalidate()
        return chatt
    }

    /// The id a keyed post gets: SHA-256 of the author and the key, as a version-8 UUID (RFC 9562 §5.8). The
    /// author is part of it, so no key chosen by one person can name another's chatt.
    package static func chattID(forKey key: String, author: UUID?) -> UUID {
        var bytes = Array(SHA256.hash(data: Array("chatterd post\n\(author?.uuidString ?? "-")\n\(key)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The page size `text` asks for (the default when nil).
    package static func pageSize(_ text: String?) throws -> Int {
        guard let text else { return defaultPage }
        guard let value = Int(text), (1...maximumPage).contains(value) else { throw TimelineError.invalidLimit }
        return value
    }

    /// The chatt id `text` names as a cursor (none when nil).
    package static func cursor(_ text: String?) throws -> UUID? {
        guard let text else { return nil }
        guard let id = UUID(uuidString: text) else { throw TimelineError.invalidCursor }
        return id
    }

    /// Newest first, for the pages (which render rather than encode them).
    package func chatts(before: UUID?, limit: Int) async throws -> [Chatt] {
        if before == nil, limit == Self.defaultPage {
            try await revalidate()
            return try await newestChatts.value()
        }
        return try await store.chatts(before: before, limit: limit)
    }

    private func invalidate() {
        course.invalidate()
        newestPage.invalidate()
        newestChatts.invalidate()
    }

    package func courseJSON() async throws -> ByteBuffer {
        try await revalidate()
        return try await course.value()
    }

    /// Drops the answers when the stamp moved. Read before any rebuild it causes, so an answer is never
    /// kept under a stamp newer than the data it was built from.
    private func revalidate() async throws {
        // The shared read answers nil only for a key its fetch left out, which this one never does.
        let read: TimelineStamp? = store.timelineStampIsInMemory ? try await store.timelineStamp() : try await stamps.value(for: 0)
        guard let stamp = read else { return }
        if lastStamp.withLock({ last in
            defer { last = stamp }
            return last != stamp
        }) {
            invalidate()
        }
    }

    /// Newest first; `before` continues from the chatt with that id.
    package func pageJSON(before: UUID?, limit: Int) async throws -> ByteBuffer {
        if before == nil, limit == Self.defaultPage {
            try await revalidate()
            return try await newestPage.value()
        }
        return try await Self.page(store, before: before, limit: limit)
    }

    private static func page(_ store: any ChattRepository, before: UUID?, limit: Int) async throws -> ByteBuffer {
        let items = try await store.chatts(before: before, limit: limit).map {
            ChattItem(id: $0.id.text, userID: $0.userID?.text, name: $0.name, message: $0.message, time: $0.time.timeIntervalSince1970)
        }
        return ByteBuffer(bytes: try WireJSON.encoder.encode(ChattPage(chatts: items, next: items.count == limit ? items.last?.id : nil)))
    }

}

/// The course API's list, `[[name, message, id, time], …]` oldest first: the bytes `JSONEncoder` wrote for
/// the `ChattRow`s (`JSONWriterTests` compares them), written into one buffer a chatt at a time as the
/// database hands them over. With thousands of chatts, the copies the encoder path held at once (the rows
/// read, the chatts, the `ChattRow`s, a tree of boxed values, `Data`, then the buffer) were the largest
/// allocations chatterd made, again after every post, and they grew the heap with the timeline.
package final class CourseList: Sendable {
    private let writer: Mutex<JSONWriter>

    package init(capacity: Int) {
        var writer = JSONWriter(capacity: capacity)
        writer.openArray()
        self.writer = Mutex(writer)
    }

    package func append(_ chatt: Chatt) {
        writer.withLock { json in
            json.element { row in
                row.element(chatt.name)
                row.element(chatt.message)
                row.element(chatt.id.text)
                row.element(TimeText.isoMilliseconds(chatt.time))
            }
        }
    }

    package func finish() -> ByteBuffer {
        writer.withLock { json in
            json.closeArray()
            return json.buffer
        }
    }
}
