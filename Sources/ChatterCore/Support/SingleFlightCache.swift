import Synchronization

/// One answer kept until `invalidate()`. A miss is rebuilt once however many requests are waiting for
/// it, and a rebuild that raced an invalidation is handed to its waiters but not kept.
package final class SingleFlightCache<Value: Sendable>: Sendable {
    private let build: @Sendable () async throws -> Value
    private let state = Mutex(State())

    private struct State {
        var cached: Value?
        var generation = 0
        var rebuild: (generation: Int, task: Task<Value, any Error>)?
    }

    package init(build: @escaping @Sendable () async throws -> Value) {
        self.build = build
    }

    package func invalidate() {
        state.withLock {
            $0.generation += 1
            $0.cached = nil
        }
    }

    package func value() async throws -> Value {
        if let hit = state.withLock({ $0.cached }) { return hit }
        let task: Task<Value, any Error> = state.withLock { state in
            if let cached = state.cached { return Task { cached } }  // filled in between: rare
            if let rebuild = state.rebuild, rebuild.generation == state.generation { return rebuild.task }
            let task = Task { [build] in try await build() }
            state.rebuild = (state.generation, task)
            return task
        }
        let value = try await task.value
        state.withLock { state in
            if state.generation == state.rebuild?.generation, state.rebuild?.task == task {
                state.cached = value
                state.rebuild = nil
            }
        }
        return value
    }
}
