import Foundation

/// Secrets in memory, for tests and previews. `failure` makes every call throw it, so callers can be
/// tested against storage that is unavailable or denied.
public final class MemoryStore: SecretStore {
    private let state = Locked<(values: [String: Data], failure: StorageError?)>(([:], nil))

    /// A store holding `values` (data by key), such as a stored session for a preview.
    public init(_ values: [String: Data] = [:]) {
        state.withLock { $0.values = values }
    }

    /// Makes every later call throw `failure`, or none with nil, to test locked or denied storage.
    /// `checkAvailable()` throws only an `.unavailable` failure.
    public func setFailure(_ failure: StorageError?) {
        state.withLock { $0.failure = failure }
    }

    /// The keys stored now, for a test to check what the SDK kept or deleted.
    public var keys: Set<String> { state.withLock { Set($0.values.keys) } }

    /// The value, or nil; throws the failure set with `setFailure(_:)`.
    public func read(_ key: String) async throws(StorageError) -> Data? {
        try state.withLock { state throws(StorageError) -> Data? in
            if let failure = state.failure { throw failure }
            return state.values[key]
        }
    }

    /// Stores the value; throws the failure set with `setFailure(_:)`.
    public func write(_ data: Data, for key: String) async throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            if let failure = state.failure { throw failure }
            state.values[key] = data
        }
    }

    /// Throws only when the failure set with `setFailure(_:)` is `.unavailable`.
    public func checkAvailable() async throws(StorageError) {
        if case .unavailable(let reason) = state.withLock({ $0.failure }) { throw .unavailable(reason) }
    }

    /// Removes the value; throws the failure set with `setFailure(_:)`.
    public func delete(_ key: String) async throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            if let failure = state.failure { throw failure }
            state.values[key] = nil
        }
    }
}
