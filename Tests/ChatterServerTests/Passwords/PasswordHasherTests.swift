import NIOPosix
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PasswordHasherTests {
    #if os(Linux)
        @Test func hashingThreadsYieldToEverythingElse() async throws {
            let pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
            defer { pool.shutdownGracefully { _ in } }
            let before = try await pool.runIfActive { sched_getscheduler(0) }
            #expect(before == 0, "a fresh thread runs under SCHED_OTHER")
            let hasher = PasswordHasher(cost: 4, pool: pool)
            #expect(try await hasher.verify("correct horse", against: try await hasher.hash("correct horse")))
            let after = try await pool.runIfActive { sched_getscheduler(0) }
            #expect(after == 5, "after hashing the thread runs under SCHED_IDLE")
        }
    #endif

    /// No speed is asserted (a loaded machine may start the thread late); only that every thread is
    /// counted at least once and the figure is a rate.
    @Test func throughputCountsVerifications() async throws {
        let rate = try await PasswordHasher.throughput(cost: 4, threads: 2, seconds: 0.1)
        #expect(rate.isFinite && rate > 0)
    }
}
