#if os(Linux)
    import Foundation
    import Glibc

    /// Runs a program to its end with its standard streams connected to this process, through
    /// `posix_spawn` rather than Foundation's `Process`.
    ///
    /// On Linux, `Process.run` looks for the highest open descriptor by copying a fixed 256 bytes out of each
    /// `/proc/self/fd` directory entry, past the end of the shorter ones; with a thousand or so files open
    /// the copy reaches an unmapped page and the whole process crashes with SIGSEGV
    /// (swift-corelibs-foundation issue 5472, fixed upstream after Swift 6.3.1). An app with many open connections,
    /// or the test suite, gets there.
    struct ChildProcess {
        struct Outcome: Sendable {
            /// The exit status, or nil when a signal ended the child.
            var status: Int32?
            /// The child was killed because it outran the timeout.
            var timedOut: Bool
            var output: Data
            var error: Data
        }

        struct LaunchError: Error, CustomStringConvertible {
            let description: String
        }

        /// Runs `path` with `arguments`, writes `input` to its standard input and closes it, and collects
        /// what it writes until it exits. A child still running after `timeout` is killed.
        static func run(_ path: String, _ arguments: [String], input: Data? = nil, timeout: Duration) async throws(LaunchError) -> Outcome {
            let child = try launch(path, arguments)
            let deadline = ContinuousClock.now + timeout
            // The rest blocks (poll, waitpid): on a thread of its own, never on the cooperative pool.
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: child.finish(input: input ?? Data(), deadline: deadline))
                }
            }
        }

        /// This process's ends of the child's standard streams.
        private struct Running: Sendable {
            let pid: pid_t
            let input: Int32, output: Int32, error: Int32

            func finish(input data: Data, deadline: ContinuousClock.Instant) -> Outcome {
                var unsent = data[...]
                var inputOpen = true
                var output = Data()
                var error = Data()
                var open = [self.output, self.error]
                var status: Int32 = 0
                var exited = false
                var timedOut = false
                // The child may leave a descendant holding its output open (a D-Bus daemon it started), so the
                // end is the child's exit, not end-of-file; what it wrote before exiting is still read. Every
                // descriptor is non-blocking: a child that reads nothing cannot hold this loop past the deadline.
                while !exited {
                    if inputOpen {
                        inputOpen = send(&unsent)
                        if !inputOpen { close(input) }
                    }
                    var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                    if inputOpen { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
                    _ = poll(&fds, nfds_t(fds.count), 20)
                    open = open.filter { fd in fd == self.output ? drain(fd, into: &output) : drain(fd, into: &error) }
                    if waitpid(pid, &status, WNOHANG) == pid {
                        exited = true
                    } else if ContinuousClock.now >= deadline {
                        kill(pid, SIGKILL)
                        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                        exited = true
                        timedOut = true
                    }
                }
                if inputOpen { close(input) }
                for fd in open {
                    _ = fd == self.output ? drain(fd, into: &output) : drain(fd, into: &error)
                    close(fd)
                }
                for fd in [self.output, self.error] where !open.contains(fd) { close(fd) }
                let signalled = status & 0x7f != 0
                return Outcome(status: signalled ? nil : (status >> 8) & 0xff, timedOut: timedOut, output: output, error: error)
            }

            /// Writes what the socket takes now; false once all is written or the child will read no more.
            /// A socket rather than a pipe, so that a child that exits without reading gets EPIPE here
            /// (`MSG_NOSIGNAL`) instead of SIGPIPE ending this process.
            private func send(_ unsent: inout Data.SubSequence) -> Bool {
                while !unsent.isEmpty {
                    let sent = unsent.withUnsafeBytes { Glibc.send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent > 0 {
                        unsent = unsent.dropFirst(sent)
                    } else {
                        return sent < 0 && (errno == EAGAIN || errno == EINTR)
                    }
                }
                return false
            }

            /// Reads what is there without waiting; false once the other end is closed.
            private func drain(_ fd: Int32, into data: inout Data) -> Bool {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        data.append(contentsOf: buffer[0..<count])
                    } else if count == 0 {
                        return false
                    } else {
                        return errno == EAGAIN || errno == EINTR
                    }
                }
            }
        }

        private static func launch(_ path: String, _ arguments: [String]) throws(LaunchError) -> Running {
            var input: [Int32] = [-1, -1]
            var output: [Int32] = [-1, -1]
            var error: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &input) == 0 else { throw LaunchError(description: failure("socketpair")) }
            guard pipe(&output) == 0 else {
                for fd in input { close(fd) }
                throw LaunchError(description: failure("pipe"))
            }
            guard pipe(&error) == 0 else {
                for fd in input + output { close(fd) }
                throw LaunchError(description: failure("pipe"))
            }
            let all = input + output + error
            for fd in all { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            for fd in [input[0], output[0], error[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }

            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, input[1], 0)
            posix_spawn_file_actions_adddup2(&actions, output[1], 1)
            posix_spawn_file_actions_adddup2(&actions, error[1], 2)
            // Every other descriptor is closed in the child, including ones some library opened without
            // close-on-exec.
            _ = addCloseFrom?(&actions, 3)

            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
            for fd in [input[1], output[1], error[1]] { close(fd) }
            guard result == 0 else {
                for fd in [input[0], output[0], error[0]] { close(fd) }
                throw LaunchError(description: "cannot start \(path): \(String(cString: strerror(result)))")
            }
            return Running(pid: pid, input: input[0], output: output[0], error: error[0])
        }

        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
        /// declare; nil on an older C library, where only close-on-exec keeps descriptors from the child.
        private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

        private static func failure(_ call: String) -> String {
            "\(call) failed: \(String(cString: strerror(errno)))"
        }
    }
#endif
