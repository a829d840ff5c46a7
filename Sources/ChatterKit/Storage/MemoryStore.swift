import Foundation

/// Secrets in memory, for tests and previews. `failure` makes every call throw it, so callers can be
/// tested against storage that is unavailable or denied.
public final class MemoryStore: SecretStore {
    private let state = Locked<(values: [String: Data], failure: StorageError?)>(([:], nil))

    public init(_ values: [String: Data] = [:]) {
        state.withLock { $0.values = values }
    }

    public func setFailure(_ failure: StorageError?) {
        state.withLock { $0.failure = failure }
    }

    public var keys: Set<String> { state.withLock { Set($0.values.keys) } }

    public func read(_ key: String) async throws(StorageError) -> Data? {
        try state.withLock { state throws(StorageError) -> Data? in
            if let failure = state.failure { throw failure }
            return state.values[key]
        }
    }

    public func write(_ data: Data, for key: String) async throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            if let failure = state.failure { throw failure }
            state.values[key] = data
        }
    }

    public func checkAvailable() async throws(StorageError) {
        if case .unavailable(let reason) = state.withLock({ $0.failure }) { throw .unavailable(reason) }
    }

    public func delete(_ key: String) async throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            if let failure = state.failure { throw failure }
            state.values[key] = nil
        }
    }
}
