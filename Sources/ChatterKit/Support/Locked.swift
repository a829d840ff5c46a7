import Foundation

/// A value behind a lock. `Synchronization.Mutex` needs macOS 15 / iOS 18; ChatterKit supports older
/// systems, so it uses NSLock, which exists everywhere Foundation does.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
