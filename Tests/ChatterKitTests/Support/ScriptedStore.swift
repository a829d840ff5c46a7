import Foundation
import Synchronization

@testable import ChatterKit

/// A memory store whose writes can fail on their own (deletes and reads still work), and whose reads can be
/// held until released: storage as a device has it mid-refresh or mid-launch.
final class ScriptedStore: SecretStore {
    private let state = Mutex<(values: [String: Data], writeFailure: StorageError?, writeAttempts: Int, holdReads: Bool, heldReads: Int)>(
        ([:], nil, 0, false, 0))

    func failWrites(_ failure: StorageError?) { state.withLock { $0.writeFailure = failure } }
    /// Holds every read of the session that starts from now on until `holdReads(false)`.
    func holdReads(_ hold: Bool) { state.withLock { $0.holdReads = hold } }
    var writeAttempts: Int { state.withLock { $0.writeAttempts } }
    var heldReads: Int { state.withLock { $0.heldReads } }

    func read(_ key: String) async throws(StorageError) -> Data? {
        // Reads the value as it is when the read starts, then waits: the answer a slow keychain gives late.
        let value = state.withLock { $0.values[key] }
        if key == StoreKey.session, state.withLock({ $0.holdReads }) {
            state.withLock { $0.heldReads += 1 }
            while state.withLock({ $0.holdReads }) { try? await Task.sleep(for: .milliseconds(5)) }
        }
        return value
    }

    func write(_ data: Data, for key: String) async throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            state.writeAttempts += 1
            if let failure = state.writeFailure { throw failure }
            state.values[key] = data
        }
    }

    func delete(_ key: String) async throws(StorageError) {
        _ = state.withLock { $0.values.removeValue(forKey: key) }
    }
}
