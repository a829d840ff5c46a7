import Crypto
import Foundation
import HummingbirdBcrypt
import NIOCore
import NIOPosix
import Synchronization

/// bcrypt, run on its own thread pool so hashing never blocks an event loop or the database's threads,
/// with a bounded queue: past it, sign-ins are told to retry instead of piling up.
public final class PasswordHasher: Sendable {
    /// Process-wide, like NIO's singletons: a thread per core, each at the lowest scheduling priority
    /// (see `HashingPriority`), so hashing gets every idle cycle and yields at once to serving requests.
    public static let sharedPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()

    public struct Busy: Error {}

    public let cost: UInt8
    let pool: NIOThreadPool
    let maximumQueued: Int
    private let queued = Atomic<Int>(0)
    /// Verified against when an account does not exist, so that "no such user" costs what "wrong password" costs.
    let decoy: String

    /// `pool` defaults to the process-wide hashing pool; pass one of your own (started) to isolate measurements.
    public init(cost: UInt8 = 12, maximumQueued: Int = 64, pool: NIOThreadPool = PasswordHasher.sharedPool) {
        self.cost = cost
        self.pool = pool
        self.maximumQueued = maximumQueued
        self.decoy = Bcrypt.hash(Self.prehash(SessionToken.generate().secret), cost: cost)
    }

    /// bcrypt reads only 72 bytes; hashing the password first with SHA-256 means every byte counts and
    /// nothing is silently truncated (and no NUL byte can end it early).
    static func prehash(_ password: String) -> String {
        Data(SHA256.hash(data: Array(password.utf8))).base64EncodedString()
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await run { Bcrypt.hash(Self.prehash(password), cost: cost) }
    }

    /// Verifies against `hash`, or against the decoy when there is no account, taking the same time.
    public func verify(_ password: String, against hash: String?) async throws -> Bool {
        let target = hash ?? decoy
        let matches = try await run { Bcrypt.verify(Self.prehash(password), hash: target) }
        return matches && hash != nil
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        let depth = queued.add(1, ordering: .relaxed).newValue
        guard depth <= maximumQueued else {
            queued.subtract(1, ordering: .relaxed)
            ChatterMetrics.hashingRefused()
            throw Busy()
        }
        ChatterMetrics.hashingQueue(depth: depth)
        defer { ChatterMetrics.hashingQueue(depth: queued.subtract(1, ordering: .relaxed).newValue) }
        let queuedAt = ContinuousClock.now
        return try await pool.runIfActive {
            ChatterMetrics.hashingWaited(since: queuedAt)
            HashingPriority.lowerCurrentThread()
            return work()
        }
    }

    /// bcrypt verifications per second this machine manages at `cost` on `threads` threads at normal
    /// priority: the ceiling password sign-in is compared with (`chatterd hash-speed`, bench/run).
    public static func throughput(cost: UInt8, threads: Int, seconds: Double) async throws -> Double {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        let hash = Bcrypt.hash(prehash("hash-speed"), cost: cost)
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(seconds * 1000))
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    try await pool.runIfActive {
                        var n = 0
                        repeat {
                            _ = Bcrypt.verify(prehash("hash-speed"), hash: hash)
                            n += 1
                        } while ContinuousClock.now < deadline
                        return n
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - started
        return Double(counts) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
