import Synchronization
import Testing

@testable import ChatterCore

/// The lock around SQLite's one writer: one holder at a time however many ask at once, first come first
/// served, and its queue bounded under steady contention.
@Suite struct AsyncMutexTests {
    /// Holders that suspend while they hold the lock still never overlap.
    @Test func manyTasksAtOnceHoldItOneAtATime() async throws {
        let lock = AsyncMutex()
        let holders = Shared((now: 0, entered: 0, mostAtOnce: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<300 {
                group.addTask {
                    try await lock.withLock {
                        holders.withLock {
                            $0.now += 1
                            $0.entered += 1
                            $0.mostAtOnce = max($0.mostAtOnce, $0.now)
                        }
                        await Task.yield()
                        holders.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = holders.withLock { $0 }
        #expect(seen.entered == 300)
        #expect(seen.mostAtOnce == 1)
        #expect(lock.waiting == 0)
    }

    /// Waiters get the lock in the order they asked for it (more of them than the queue keeps before it is
    /// compacted), and a throwing body releases it.
    @Test func waitersGetItInTheOrderTheyAsked() async throws {
        let lock = AsyncMutex()
        let held = Shared(false)
        let release = Shared(false)
        let holder = Task {
            try await lock.withLock {
                held.withLock { $0 = true }
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            }
        }
        while !held.withLock({ $0 }) { await Task.yield() }
        let order = Shared<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<200 {
            tasks.append(Task { try await lock.withLock { order.withLock { $0.append(index) } } })
            while lock.waiting < index + 1 { await Task.yield() }
        }
        release.withLock { $0 = true }
        try await holder.value
        for task in tasks { try await task.value }
        #expect(order.withLock { $0 } == Array(0..<200), "resumed first come, first served")
        #expect(lock.waiting == 0)
        struct Planted: Error {}
        await #expect(throws: Planted.self) { try await lock.withLock { throw Planted() } }
        #expect(try await lock.withLock { 7 } == 7, "a throwing body gave the lock back")
    }
}

/// A value tasks share, behind a lock.
private final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}
