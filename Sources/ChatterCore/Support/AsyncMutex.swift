import Synchronization

/// A FIFO lock for async code. SQLite allows one writer at a time, and a multi-statement transaction on a
/// shared connection must not interleave with another task's statements across its suspension points.
///
/// Not an actor: taking a free lock is one atomic step on the caller's thread, with no suspension. An
/// actor's lock hopped to the actor, off it to run the body, and back to release: three trips through
/// the executor's queue per write. When the process is saturated (the whole test suite at once, or a
/// burst), each trip waits behind every runnable task, so 100 writes queued on the lock took a minute
/// (issue 46's CI run). Now only a waiter suspends, and it is resumed when ownership passes to it.
package final class AsyncMutex: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// The next waiter to resume: the queue is an array read from the front, compacted in `unlock`.
        var next = 0
    }

    private let state = Mutex(State())

    package init() {}

    package func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        let taken = state.withLock { state in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
        if taken { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let takenMeanwhile = state.withLock { state in
                guard state.locked else {
                    state.locked = true
                    return true
                }
                state.waiters.append(waiter)
                return false
            }
            if takenMeanwhile { waiter.resume() }
        }
    }

    private func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.next < state.waiters.count else {
                state.locked = false
                state.waiters.removeAll(keepingCapacity: true)
                state.next = 0
                return nil
            }
            let waiter = state.waiters[state.next]
            state.next += 1
            // Under steady contention the queue may never empty: drop the resumed part once it is most of it.
            if state.next >= 64, state.next * 2 >= state.waiters.count {
                state.waiters.removeFirst(state.next)
                state.next = 0
            }
            return waiter  // ownership passes straight to the next waiter: `locked` stays set
        }
        next?.resume()
    }

    /// Tasks waiting for the lock now, for tests.
    package var waiting: Int { state.withLock { $0.waiters.count - $0.next } }
}
