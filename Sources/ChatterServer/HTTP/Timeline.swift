import ChatterWire
import Foundation
import Hummingbird
import Synchronization

/// The chatt timeline. Its two most frequent answers — the course API's full list and the native API's
/// newest page — are cached as encoded JSON: they change only when a chatt is posted or deleted. This
/// process's posts drop them at once; for writes by other instances or processes, each answer first
/// compares the store's `timelineStamp()` with the one seen last.
final class Timeline: Sendable {
    static let defaultPage = 50
    static let maximumPage = 200

    let store: any ChattRepository
    private let course: SingleFlightCache
    private let newestPage: SingleFlightCache
    private let lastStamp = Mutex<TimelineStamp?>(nil)
    /// Concurrent answers share stamp reads: each waits for a read that began after it arrived (so it sees
    /// every write committed before it). Two reads may overlap, so an answer waits at most one round trip
    /// (not the rest of the running read and then a whole one), and a busy server still reads the stamp
    /// about twice per round trip, not once per request.
    private let stamps: BatchingLookup<Int, TimelineStamp>

    init(store: any ChattRepository) {
        self.store = store
        stamps = BatchingLookup(maximumBatch: .max, maximumFetchers: 2) { _ in
            [0: try await store.timelineStamp()]
        }
        course = SingleFlightCache {
            let rows = try await store.allChatts().map {
                ChattRow(name: $0.name, message: $0.message, id: $0.id.text, time: Self.timestamp($0.time))
            }
            return ByteBuffer(bytes: try JSONResponse.encoder.encode(rows))
        }
        newestPage = SingleFlightCache { try await Self.page(store, before: nil, limit: Self.defaultPage) }
    }

    /// A post whose author was deleted while it ran is the client's bad luck, answered as a signed-out 401.
    func add(_ chatt: Chatt) async throws {
        do {
            try await ChatterMetrics.database("add_chatt") { try await store.addChatt(chatt) }
        } catch StoreError.userGone {
            throw APIError(.unauthorized, "invalid_session", "This account no longer exists; sign in again.")
        }
        course.invalidate()
        newestPage.invalidate()
    }

    func courseJSON() async throws -> ByteBuffer {
        try await revalidate()
        return try await course.value()
    }

    /// Drops both answers when the stamp moved. Read before any rebuild it causes, so an answer is never
    /// kept under a stamp newer than the data it was built from.
    private func revalidate() async throws {
        // The shared read answers nil only for a key its fetch left out, which this one never does.
        let read: TimelineStamp? = store.timelineStampIsInMemory ? try await store.timelineStamp() : try await stamps.value(for: 0)
        guard let stamp = read else { return }
        if lastStamp.withLock({ last in defer { last = stamp }; return last != stamp }) {
            course.invalidate()
            newestPage.invalidate()
        }
    }

    /// Newest first; `before` continues from the chatt with that id.
    func pageJSON(before: UUID?, limit: Int) async throws -> ByteBuffer {
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
        return ByteBuffer(bytes: try JSONResponse.encoder.encode(ChattPage(chatts: items, next: items.count == limit ? items.last?.id : nil)))
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
