import NIOPosix

/// Runs a mail test on an event loop of its own, which does both the client's I/O and timers and the test's
/// task itself, so that nothing the other suites do can delay one against the other.
///
/// Without it, the SMTP client's timers run on NIO's shared event loops while the task that waits for each
/// reply is resumed on Swift's shared cooperative pool: one thread per core, and in a full parallel run on a
/// 2-core machine every suite's jobs queue there. Under load a task whose reply had long arrived could wait
/// over a minute to run again, while the client's wall-clock timeouts ran on: the 60 s total timeout then
/// ended sessions that a scripted or real server had answered at once, and timeout tests saw the wrong timer
/// fire or took far longer than their bounds. Here the task only waits for its own loop's thread, which the
/// operating system schedules like any other thread however busy the pool is.
enum OwnEventLoop {
    static func run<Result, Failure: Error>(
        _ body: (_ group: MultiThreadedEventLoopGroup) async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer {
            // Not awaited, as this may still run on the loop's own thread. The body is over and its task no
            // longer prefers the loop (only child tasks inherit that, and they have all ended), so nothing is
            // left to run there; the loop closes any channel still open and its thread ends.
            group.shutdownGracefully { _ in }
        }
        return try await withTaskExecutorPreference(LoopTaskExecutor(group)) { () async throws(Failure) -> Result in
            try await body(group)
        }
    }
}

/// Runs tasks' jobs on a one-thread event loop group, between its I/O.
private final class LoopTaskExecutor: TaskExecutor {
    let group: MultiThreadedEventLoopGroup

    init(_ group: MultiThreadedEventLoopGroup) { self.group = group }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        group.next().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
