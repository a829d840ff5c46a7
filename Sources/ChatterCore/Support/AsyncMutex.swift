/// A FIFO lock for async code. SQLite allows one writer at a time, and a multi-statement transaction on a
/// shared connection must not interleave with another task's statements across its suspension points.
package actor AsyncMutex {
    package init() {}

    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await lock()
        do {
            let value = try await body()
            unlock()
            return value
        } catch {
            unlock()
            throw error
        }
    }

    private func lock() async {
        if locked {
            await withCheckedContinuation { waiters.append($0) }
        } else {
            locked = true
        }
    }

    private func unlock() {
        if waiters.isEmpty {
            locked = false
        } else {
            waiters.removeFirst().resume()  // ownership passes straight to the next waiter
        }
    }
}
