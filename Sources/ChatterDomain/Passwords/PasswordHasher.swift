import ChatterCore
import Crypto
import Foundation
import HummingbirdBcrypt
import NIOCore
import NIOPosix
import Synchronization

/// bcrypt, run on its own thread pool so hashing never blocks an event loop or the database's threads,
/// with a bounded queue in two lanes: past its bound, a sign-in is told to retry instead of piling up.
///
/// Work for strangers (a password sign-in from a client no device token vouches for) waits in a lane of
/// its own, at most `strangerShare` of `maximumQueued` long, and every other hash (a recognised device, a
/// signed-in password change, a sign-up or reset whose address an emailed code proved) goes before any
/// stranger's that waits. So a flood of guesses from many addresses cannot make the owner's device wait
/// behind it, or fail. One account holds at most `perOwner` places in the recognised lane; more of its
/// hashes wait as strangers', so an account holder who floods with its own device token or session
/// cannot take the lane from everyone else.
public final class PasswordHasher: Sendable {
    /// Whose work a hash is.
    public enum Lane: Sendable {
        /// Someone chatterd knows: a recognised device, a signed-in user, a proven address.
        case recognised
        /// A password sign-in from a client nothing vouches for.
        case stranger
    }

    /// Process-wide, like NIO's singletons: a thread per core, each at the lowest scheduling priority
    /// (see `HashingPriority`), so hashing gets every idle cycle and yields at once to serving requests.
    public static let sharedPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()

    public struct Busy: Error {}

    public let cost: UInt8
    package let pool: NIOThreadPool
    package let maximumQueued: Int
    /// How many strangers' hashes may wait at once: the global budget for unrecognised password work.
    package let strangerLimit: Int
    /// Hashes running on the pool, at most one per thread, so waiting ones can still be reordered.
    package let slots: Int
    /// Places one account may hold in the recognised lane (waiting or running).
    package static let perOwner = 2
    private let scheduler = Mutex(Scheduler())
    /// Hashes asked for so far, each started, queued or refused: tests wait on it rather than on a clock.
    private let asked = Atomic(0)
    package var hashesAsked: Int { asked.load(ordering: .relaxed) }
    /// Verified against when an account does not exist, so that "no such user" costs what "wrong password" costs.
    package let decoy: String

    /// `pool` defaults to the process-wide hashing pool; pass one of your own (started) to isolate measurements.
    /// `threads`: how many hashes run at once (the pool's thread count; the shared pool has one per core).
    public init(
        cost: UInt8 = 12, maximumQueued: Int = 64, strangerShare: Double = 0.75, pool: NIOThreadPool = PasswordHasher.sharedPool,
        threads: Int = System.coreCount
    ) {
        self.cost = cost
        self.pool = pool
        self.maximumQueued = maximumQueued
        self.strangerLimit = Int(Double(maximumQueued) * min(1, max(0, strangerShare)))
        self.slots = max(1, threads)
        self.decoy = Bcrypt.hash(Self.prehash(SessionToken.generate().secret), cost: cost)
    }

    /// bcrypt reads only 72 bytes; hashing the password first with SHA-256 means every byte counts and
    /// nothing is silently truncated (and no NUL byte can end it early).
    package static func prehash(_ password: String) -> String {
        Data(SHA256.hash(data: Array(password.utf8))).base64EncodedString()
    }

    /// A new password's hash: always recognised work (a proven address or a signed-in user).
    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await run(.recognised) { Bcrypt.hash(Self.prehash(password), cost: cost) }
    }

    /// Verifies against `hash`, or against the decoy when there is no account, taking the same time.
    /// `owner` names the account a recognised hash is for (its share of the lane).
    public func verify(_ password: String, against hash: String?, lane: Lane = .recognised, owner: String? = nil) async throws -> Bool {
        let target = hash ?? decoy
        let matches = try await run(lane, owner: owner) { Bcrypt.verify(Self.prehash(password), hash: target) }
        return matches && hash != nil
    }

    /// Runs `work` on a hashing thread: at once when one is free, else after every waiting hash of a
    /// recognised client and then in order; refused (`Busy`) when its lane's share of the queue is full. Internal,
    /// not private, so tests can see the order work starts in on the hashing thread.
    func run<T: Sendable>(_ lane: Lane, owner: String? = nil, _ work: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let queuedAt = ContinuousClock.now
            let job = Job(
                run: {
                    ChatterMetrics.hashingWaited(since: queuedAt)
                    HashingPriority.lowerCurrentThread()
                    continuation.resume(returning: work())
                },
                cancel: { continuation.resume(throwing: Busy()) }, owner: lane == .recognised ? owner : nil)
            let decision = scheduler.withLock { $0.admit(job, lane, slots: slots, limits: (recognised: maximumQueued, strangers: strangerLimit)) }
            asked.add(1, ordering: .relaxed)
            switch decision {
            case .start(let admitted, let depth):
                ChatterMetrics.hashingQueue(depth: depth)
                start(admitted)
            case .wait(let depth):
                ChatterMetrics.hashingQueue(depth: depth)
            case .refuse:
                ChatterMetrics.hashingRefused()
                continuation.resume(throwing: Busy())
            }
        }
    }

    /// Runs `job` on the pool; when it is done, the next waiting job (recognised first) takes its thread.
    private func start(_ job: Job) {
        pool.submit { [self] state in
            if case .active = state { job.run() } else { job.cancel() }
            let (next, depth) = scheduler.withLock { $0.finished(job) }
            ChatterMetrics.hashingQueue(depth: depth)
            if let next { start(next) }
        }
    }

    package struct Job: Sendable {
        package let run: @Sendable () -> Void
        package let cancel: @Sendable () -> Void
        /// The account whose recognised place this job holds, if it holds one.
        package var owner: String?
    }

    /// Which hashes run and which wait, in two first-in-first-out lanes.
    package struct Scheduler {
        package var running = 0
        package var recognised: [Job] = [], recognisedHead = 0
        package var strangers: [Job] = [], strangersHead = 0
        /// Recognised places each account holds, waiting or running.
        package var held: [String: Int] = [:]

        /// `start` carries the job as admitted (an account past its share no longer holds a place).
        package enum Decision {
            case start(Job, depth: Int)
            case wait(depth: Int)
            case refuse
        }

        package var waiting: (recognised: Int, strangers: Int) { (recognised.count - recognisedHead, strangers.count - strangersHead) }
        package var depth: Int { running + waiting.recognised + waiting.strangers }

        package mutating func admit(_ job: Job, _ lane: Lane, slots: Int, limits: (recognised: Int, strangers: Int)) -> Decision {
            var job = job
            var lane = lane
            if let owner = job.owner {
                // Past its share, an account's work waits as a stranger's.
                if held[owner, default: 0] >= PasswordHasher.perOwner {
                    job.owner = nil
                    lane = .stranger
                }
            }
            let decision: Decision
            if running < slots, waiting == (0, 0) {
                running += 1
                decision = .start(job, depth: depth)
            } else {
                switch lane {
                case .recognised:
                    guard waiting.recognised < limits.recognised else { return .refuse }
                    recognised.append(job)
                case .stranger:
                    guard waiting.strangers < limits.strangers else { return .refuse }
                    strangers.append(job)
                }
                decision = .wait(depth: depth)
            }
            if let owner = job.owner { held[owner, default: 0] += 1 }
            return decision
        }

        /// `job` ended: the job to start in its place, if any waits.
        package mutating func finished(_ job: Job) -> (Job?, depth: Int) {
            if let owner = job.owner {
                let left = held[owner, default: 1] - 1
                held[owner] = left > 0 ? left : nil
            }
            if let job = Self.pop(&recognised, &recognisedHead) ?? Self.pop(&strangers, &strangersHead) { return (job, depth) }
            running -= 1
            return (nil, depth)
        }

        private static func pop(_ jobs: inout [Job], _ head: inout Int) -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            // Under a steady flood the lane never empties: drop what was taken once it is half the array.
            if head == jobs.count || head >= 32 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
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
