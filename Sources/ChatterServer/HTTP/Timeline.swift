import ChatterWire
import Foundation
import Hummingbird
import Synchronization

/// The chatt timeline with the course API's full answer cached as encoded JSON: `GET /getchatts` is the
/// most frequent request and its answer changes only when a chatt is posted, which drops the cache.
/// A miss is rebuilt once however many requests are waiting for it, so a burst after a post costs one
/// read of the table, not one per connection.
final class Timeline: Sendable {
    let store: any ChattRepository
    private let state = Mutex(State())

    private struct State {
        var cached: ByteBuffer?
        /// Bumped on every write so a rebuild that raced a post is not stored as current.
        var generation = 0
        var rebuild: (generation: Int, task: Task<ByteBuffer, any Error>)?
    }

    init(store: any ChattRepository) {
        self.store = store
    }

    func add(_ chatt: Chatt) async throws {
        try await store.addChatt(chatt)
        state.withLock {
            $0.generation += 1
            $0.cached = nil
        }
    }

    func courseJSON() async throws -> ByteBuffer {
        if let hit = state.withLock({ $0.cached }) { return hit }
        let task: Task<ByteBuffer, any Error> = state.withLock { state in
            if let cached = state.cached { return Task { cached } }  // filled in between: rare
            if let rebuild = state.rebuild, rebuild.generation == state.generation { return rebuild.task }
            let generation = state.generation
            let task = Task { [store] in
                let rows = try await store.allChatts().map {
                    ChattRow(name: $0.name, message: $0.message, id: $0.id.uuidString, time: Self.timestamp($0.time))
                }
                return ByteBuffer(bytes: try JSONResponse.encoder.encode(rows))
            }
            state.rebuild = (generation, task)
            return task
        }
        let buffer = try await task.value
        state.withLock { state in
            if state.generation == state.rebuild?.generation, state.rebuild?.task == task {
                state.cached = buffer
                state.rebuild = nil
            }
        }
        return buffer
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
