import Foundation
import Synchronization

/// Sessions recently looked up, by access-token hash, so an authenticated request need not ask the
/// database again. Every write that could end or change a session or its user empties it (see
/// `SQLiteStore.write` and `transaction`); inserting rows never does, since a new row cannot change
/// an existing session. A lookup that raced such a write is not cached: the generation tells.
final class SessionCache: Sendable {
    struct Entry: Sendable {
        var session: AuthenticatedSession
        var refreshable: Bool
        var lastUsedAt: Date
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var generation = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Read before asking the database; pass to `insert`.
    var generation: Int { state.withLock { $0.generation } }

    subscript(hash: [UInt8]) -> Entry? { state.withLock { $0.entries[hash] } }

    /// Keeps `entry` unless something was written since `generation` was read.
    func insert(_ entry: Entry, for hash: [UInt8], readAt generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            // Full: drop an arbitrary entry (hash order is effectively random); it will be read again.
            if state.entries.count >= capacity, let victim = state.entries.keys.first { state.entries[victim] = nil }
            state.entries[hash] = entry
        }
    }

    func touched(_ hash: [UInt8], at instant: Date) {
        state.withLock { $0.entries[hash]?.lastUsedAt = instant }
    }

    func invalidateAll() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }
}
