import ChatterWire
import Foundation
import Hummingbird
import Synchronization

/// The chatt timeline with the course API's full answer cached as encoded JSON: `GET /getchatts` is the
/// most frequent request and its answer changes only when a chatt is posted, which drops the cache.
final class Timeline: Sendable {
    let store: any ChattRepository
    private let cached = Mutex<ByteBuffer?>(nil)
    // Bumped on every write so a read that raced a post cannot store a stale answer.
    private let generation = Atomic<Int>(0)

    init(store: any ChattRepository) {
        self.store = store
    }

    func add(_ chatt: Chatt) async throws {
        try await store.addChatt(chatt)
        generation.add(1, ordering: .sequentiallyConsistent)
        cached.withLock { $0 = nil }
    }

    func courseJSON() async throws -> ByteBuffer {
        if let hit = cached.withLock({ $0 }) { return hit }
        let before = generation.load(ordering: .sequentiallyConsistent)
        let rows = try await store.allChatts().map {
            ChattRow(name: $0.name, message: $0.message, id: $0.id.uuidString, time: Self.timestamp($0.time))
        }
        let buffer = ByteBuffer(bytes: try JSONResponse.encoder.encode(rows))
        cached.withLock { slot in
            if generation.load(ordering: .sequentiallyConsistent) == before { slot = buffer }
        }
        return buffer
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
