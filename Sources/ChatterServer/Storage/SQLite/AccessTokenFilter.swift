import Synchronization

/// A Bloom filter over the access-token hashes of stored sessions: "certainly not a session" without
/// touching the database, so a flood of guessed or stale tokens costs no query.
///
/// It may answer "maybe" for a token that is not stored (about 1 % of the time at its design load, more
/// as ended sessions accumulate, until the next rebuild); the database then decides. It must never
/// answer "no" for a stored session: hashes are added after their session is committed and before its
/// token is handed out, and a rebuild also keeps every hash added while it reads the table.
final class AccessTokenFilter: Sendable {
    private struct State {
        var bits: Bits
        var added = 0
        /// Hashes added while a rebuild reads the table; nil when no rebuild runs.
        var duringRebuild: [[UInt8]]?

        /// At 10 bits per hash false "maybe"s reach about 1 %: time to rebuild without the ended sessions.
        var isFull: Bool { added > bits.count / 10 }
    }

    private let state: Mutex<State>

    /// An empty filter with room for twice `expected` hashes before it asks for a rebuild.
    init(expecting expected: Int) {
        state = Mutex(State(bits: Bits(room: expected)))
    }

    /// Returns whether a rebuild is due.
    @discardableResult
    func insert(_ hash: [UInt8]) -> Bool {
        state.withLock { state in
            state.bits.set(hash)
            state.added += 1
            state.duringRebuild?.append(hash)
            return state.duringRebuild == nil && state.isFull
        }
    }

    func mightContain(_ hash: [UInt8]) -> Bool {
        state.withLock { $0.bits.contains(hash) }
    }

    /// Replaces the filter with one built from every stored hash (`count` them, then `forEach` passes each
    /// to its argument) plus whatever is added meanwhile, dropping the hashes of sessions that have ended.
    /// Does nothing while another rebuild runs, or when the filter is not yet full unless `always`.
    func rebuild(
        always: Bool = false, count: () async throws -> Int, forEach: (@escaping @Sendable ([UInt8]) -> Void) async throws -> Void
    ) async throws {
        let start = state.withLock { state in
            guard state.duringRebuild == nil, always || state.isFull else { return false }
            state.duringRebuild = []
            return true
        }
        guard start else { return }
        do {
            let stored = try await count()
            let fresh = Mutex((bits: Bits(room: stored), added: 0))
            try await forEach { hash in fresh.withLock { $0.bits.set(hash); $0.added += 1 } }
            state.withLock { state in
                var (bits, added) = fresh.withLock { $0 }
                for hash in state.duringRebuild ?? [] { bits.set(hash) }
                state = State(bits: bits, added: added + (state.duringRebuild?.count ?? 0))
            }
        } catch {
            state.withLock { $0.duringRebuild = nil }
            throw error
        }
    }
}

/// The bit array: 20 bits per expected hash (at least 2^20 bits, 128 KiB), a power of two in size.
private struct Bits {
    private var words: [UInt64]
    var count: Int { words.count * 64 }
    /// Probes per hash: at 10 bits per hash, about 1 % false "maybe"s.
    private static let probes = 7

    init(room expected: Int) {
        var size = 1 << 20
        while size < expected * 20 { size <<= 1 }
        words = [UInt64](repeating: 0, count: size / 64)
    }

    /// The hashes are SHA-256 outputs, already uniform: their first 32-bit words are the probe positions.
    private func position(_ probe: Int, of hash: [UInt8]) -> Int {
        let i = probe * 4
        let word = Int(hash[i]) << 24 | Int(hash[i + 1]) << 16 | Int(hash[i + 2]) << 8 | Int(hash[i + 3])
        return word & (count - 1)
    }

    mutating func set(_ hash: [UInt8]) {
        precondition(hash.count >= Self.probes * 4, "access token hashes are SHA-256")
        for probe in 0..<Self.probes {
            let p = position(probe, of: hash)
            words[p >> 6] |= 1 << UInt64(p & 63)
        }
    }

    func contains(_ hash: [UInt8]) -> Bool {
        guard hash.count >= Self.probes * 4 else { return true }  // not a SHA-256: let the database answer
        for probe in 0..<Self.probes {
            let p = position(probe, of: hash)
            if words[p >> 6] & (1 << UInt64(p & 63)) == 0 { return false }
        }
        return true
    }
}
