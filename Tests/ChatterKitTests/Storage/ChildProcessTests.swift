#if os(Linux)
    import Foundation
    import Glibc
    import Testing

    @testable import ChatterKit

    /// The launcher the keyring store runs secret-tool with.
    @Suite struct ChildProcessTests {
        @Test func inputGoesInAndBothOutputsAndTheStatusComeBack() async throws {
            let outcome = try await ChildProcess.run(
                "/bin/sh", ["-c", "read line; echo \"got $line\"; echo oops >&2; exit 3"], input: Data("hello\n".utf8), timeout: .seconds(10))
            #expect(outcome.status == 3)
            #expect(outcome.timedOut == false)
            #expect(String(decoding: outcome.output, as: UTF8.self) == "got hello\n")
            #expect(String(decoding: outcome.error, as: UTF8.self) == "oops\n")
        }

        /// Also when it reads none of an input larger than the socket holds, which must not block the caller.
        /// The bound is half the child's own time, not a latency: a whole parallel suite on two cores can delay
        /// the kill by seconds, while a caller held by the child would wait all of it.
        @Test func aChildThatOutrunsTheTimeoutIsKilled() async throws {
            let started = ContinuousClock.now
            let outcome = try await ChildProcess.run("/bin/sleep", ["120"], input: Data(repeating: 65, count: 1 << 20), timeout: .milliseconds(300))
            #expect(outcome.timedOut)
            #expect(outcome.status == nil, "ended by a signal, not an exit")
            #expect(ContinuousClock.now - started < .seconds(60))
        }

        /// The end is the child's exit: a descendant that keeps the child's output open does not hold the caller.
        @Test func aDescendantHoldingTheOutputOpenDoesNotHoldTheCaller() async throws {
            let started = ContinuousClock.now
            let outcome = try await ChildProcess.run("/bin/sh", ["-c", "sleep 120 & echo started"], timeout: .seconds(90))
            #expect(outcome.status == 0)
            #expect(outcome.timedOut == false)
            #expect(String(decoding: outcome.output, as: UTF8.self) == "started\n")
            #expect(ContinuousClock.now - started < .seconds(60), "the descendant's 120 s did not hold the caller")
        }

        @Test func aChildThatDoesNotReadItsInputEndsCleanly() async throws {
            let outcome = try await ChildProcess.run("/bin/true", [], input: Data(repeating: 65, count: 1 << 20), timeout: .seconds(10))
            #expect(outcome.status == 0)
        }

        @Test func aMissingProgramIsALaunchError() async {
            await #expect(throws: ChildProcess.LaunchError.self) {
                try await ChildProcess.run("/nonexistent/program", [], timeout: .seconds(1))
            }
        }

        /// Foundation's Process crashed the whole process here (it read past /proc/self/fd's entries once
        /// they filled its buffer), and leaked descriptors opened without close-on-exec into the child.
        @Test func startsWithThousandsOfDescriptorsOpenAndPassesNoneOfThem() async throws {
            let extra = 1_600
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            if limit.rlim_cur < rlim_t(extra + 1_000) {
                limit.rlim_cur = min(limit.rlim_max, rlim_t(extra + 1_000))
                setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            }
            var opened: [Int32] = []
            defer { for fd in opened { close(fd) } }
            for _ in 0..<extra {
                let fd = open("/dev/null", O_RDONLY)  // without O_CLOEXEC, on purpose
                if fd < 0 { break }
                opened.append(fd)
            }
            try #require(opened.count == extra, "could open only \(opened.count) descriptors")
            for _ in 0..<5 {
                let outcome = try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"], timeout: .seconds(10))
                #expect(outcome.status == 0)
                let listed = Set(String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) })
                let leaked = listed.intersection(opened.filter { $0 > 2 }).count
                #expect(leaked == 0, "\(leaked) of this process's descriptors reached the child")
            }
        }
    }
#endif
