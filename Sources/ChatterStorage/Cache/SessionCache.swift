import ChatterCore
import Foundation
import Synchronization

/// Sessions recently looked up, by access-token hash, so an authenticated request need not ask the
/// database again. Every store keeps one and empties it on each of its own writes that could end or
/// change a session or its user; inserting rows never does, since a new row cannot change an existing
/// session. A lookup that raced such a write is not cached: the generation tells.
///
/// A database other instances write to can end a session behind this cache's back, so such a store
/// gives its cache a `maximumAge`: an entry older than that is read again, which bounds how long another
/// instance's revocation can go unseen.
package final class SessionCache: Sendable {
    package struct Entry: Sendable {
        package var session: AuthenticatedSession
        package var refreshable: Bool
        package var lastUsedAt: Date
    }

    private struct Stored {
        var entry: Entry
        var readAt: ContinuousClock.Instant
    }

    private struct State {
        var entries: [[UInt8]: Stored] = [:]
        /// Each cached session's one entry, so a rotation can evict exactly the sessions it changed.
        var bySession: [UUID: [UInt8]] = [:]
        var generation = 0

        mutating func remove(_ hash: [UInt8]) {
            guard let stored = entries.removeValue(forKey: hash) else { return }
            if bySession[stored.entry.session.sessionID] == hash { bySession[stored.entry.session.sessionID] = nil }
        }
    }

    /// Sessions in use are touched at most this often, so authenticated reads rarely write.
    package static let touchInterval: Double = 60

    private let state = Mutex(State())
    private let capacity: Int
    private let maximumAge: Duration?

    package init(capacity: Int = 10_000, maximumAge: Duration? = nil) {
        self.capacity = capacity
        self.maximumAge = maximumAge
    }

    /// Read before asking the database; pass to `insert`.
    package var generation: Int { state.withLock { $0.generation } }

    package subscript(hash: [UInt8]) -> Entry? {
        state.withLock { state in
            guard let stored = state.entries[hash] else { return nil }
            if let maximumAge, stored.readAt.duration(to: .now) > maximumAge {
                state.remove(hash)
                return nil
            }
            return stored.entry
        }
    }

    /// Keeps `entry` unless something was written since `generation` was read. `readAt` is when the read
    /// began: an entry's age counts from then, so a slow lookup does not stretch `maximumAge`.
    package func insert(_ entry: Entry, for hash: [UInt8], generation: Int, readAt now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            guard state.generation == generation else { return }
            // A session has one access token at a time: an entry under its previous one goes.
            if let previous = state.bySession[entry.session.sessionID], previous != hash { state.remove(previous) }
            // Full: drop an arbitrary entry (hash order is effectively random); it will be read again.
            if state.entries.count >= capacity, state.entries[hash] == nil, let victim = state.entries.keys.first { state.remove(victim) }
            state.entries[hash] = Stored(entry: entry, readAt: now)
            state.bySession[entry.session.sessionID] = hash
        }
    }

    package func touched(_ hash: [UInt8], at instant: Date) {
        state.withLock { $0.entries[hash]?.entry.lastUsedAt = instant }
    }

    package func invalidateAll() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
            state.bySession.removeAll(keepingCapacity: true)
        }
    }

    /// After a write that changed only `sessions` (a batch of rotations): their entries go, everyone
    /// else's stay. A lookup that raced the write is still not cached (the generation moves), so it
    /// cannot put back an entry read before the write.
    package func evict(sessions: some Sequence<UUID>) {
        state.withLock { state in
            state.generation += 1
            for id in sessions {
                if let hash = state.bySession.removeValue(forKey: id) { state.entries[hash] = nil }
            }
        }
    }

    package var count: Int { state.withLock { $0.entries.count } }

    /// The lookup every store answers `SessionRepository.session(accessHash:at:)` with: from the cache or
    /// `read`; an expired access token of a session that cannot be refreshed deletes it (`delete`), and a
    /// session in use is touched (`touch`) at most every `touchInterval`.
    package func session(
        _ accessHash: [UInt8], at now: Date, read: ([UInt8]) async throws -> Entry?, delete: (UUID) async throws -> Void,
        touch: (UUID, Date) async throws -> Void
    ) async throws -> SessionLookup {
        let found: Entry
        if let hit = self[accessHash] {
            ChatterMetrics.sessionCache(hit: true)
            found = hit
        } else {
            ChatterMetrics.sessionCache(hit: false)
            let generation = self.generation
            let started = ContinuousClock.now
            guard let entry = try await ChatterMetrics.database("session_lookup", { try await read(accessHash) }) else { return .unknown }
            insert(entry, for: accessHash, generation: generation, readAt: started)
            found = entry
        }
        guard now < found.session.accessExpiresAt else {
            if !found.refreshable { try await delete(found.session.sessionID) }
            return .expired
        }
        if now.timeIntervalSince(found.lastUsedAt) >= Self.touchInterval {
            try await touch(found.session.sessionID, now)
            touched(accessHash, at: now)
        }
        return .valid(found.session)
    }
}

extension SessionCache {
    /// Runs a batch of rotations and evicts the sessions it may have changed: those its tokens name and
    /// those it answered as rotated. If the batch fails, what it changed is unknown, so everything goes.
    package func evictingRotated(_ batch: [Rotation], _ rotate: () async throws -> [Rotation: RotatedSession]) async throws -> [Rotation: RotatedSession] {
        do {
            let rotated = try await rotate()
            evict(sessions: batch.compactMap(\.sessionID) + rotated.values.map(\.sessionID))
            return rotated
        } catch {
            invalidateAll()
            throw error
        }
    }
}
