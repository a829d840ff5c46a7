import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-connection SMTP server that plays a script, for what a well-behaved server never does, such as a
/// reply injected after STARTTLS. `ScriptedSMTPServer(["220 …", "250 …"])` sends the first reply as soon as
/// the client connects and each next one after a complete line from the client, however the client's bytes
/// are split across reads.
///
/// Built to behave the same with hundreds of tests running in parallel on a loaded machine:
/// - One thread serves the session from start to end and is the only one that uses or closes its two
///   sockets. No other thread can close a descriptor under it, and it never touches a descriptor number
///   after closing it (the process reuses numbers at once for other tests' sockets).
/// - It accepts one connection and then closes the listener, so a second client is refused rather than
///   served from this script.
/// - Every wait is a `poll()` in short slices, so the thread always ends: when the client hangs up, when the
///   test calls `finish()` or drops the server, or after `patience` without the next thing it waits for,
///   and the transcript says which.
final class ScriptedSMTPServer: Sendable {
    enum Step: Sendable {
        /// Sends these bytes in a single write, so that lines in one reply reach the client in one segment.
        case reply(String)
        /// Waits for one complete line (up to its LF) from the client.
        case line
        /// Waits for any bytes at all: for a TLS ClientHello, which has no line end.
        case bytes
    }

    /// What the server saw, for the test to check after `finish()`.
    struct Transcript: Sendable, Equatable, CustomStringConvertible {
        enum Ending: Sendable, Equatable {
            /// The client closed the connection: the normal end.
            case clientHungUp
            /// The test finished the server while it still waited for this.
            case stopped(waitingFor: String)
            case timedOut(waitingFor: String)
            case failed(String)
        }

        /// Every byte the client sent, in order.
        var received: [UInt8] = []
        var repliesSent = 0
        var ending: Ending?

        /// What the client sent, as text; bytes that are not UTF-8 (a TLS record) as replacement characters.
        var text: String { String(decoding: received, as: UTF8.self) }

        var description: String {
            "\(repliesSent) replies sent, received \(text.debugDescription), ended: \(ending.map { "\($0)" } ?? "not yet")"
        }
    }

    private struct State {
        var transcript = Transcript()
        var stopRequested = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the test and the serving thread share: the only thing they share (the thread holds no reference
    /// to the server, so dropping the server can stop the thread).
    private final class Shared: Sendable {
        let state = Mutex(State())
        func withLock<Result>(_ body: (inout State) -> Result) -> Result { state.withLock { body(&$0) } }
    }

    let port: Int
    private let state = Shared()

    /// The first reply on connect, then the next after each line the client sends.
    convenience init(_ replies: [String], patience: Duration = ScriptedSMTPServer.defaultPatience) throws {
        var steps: [Step] = []
        for (index, reply) in replies.enumerated() {
            if index > 0 { steps.append(.line) }
            steps.append(.reply(reply))
        }
        try self.init(steps: steps, patience: patience)
    }

    /// Plays `steps`, then records what the client sends until it hangs up. `patience` bounds each wait:
    /// for the connection, for each step and for the hang-up.
    init(steps: [Step], patience: Duration = ScriptedSMTPServer.defaultPatience) throws {
        let socket = try LoopbackSocket(listening: true)
        port = socket.port
        let state = self.state
        let listener = socket.descriptor
        // Blocking socket calls on a thread of its own, so they never hold up the tests' executors.
        Thread.detachNewThread {
            Session(state: state, patience: patience).serve(listener: listener, steps: steps)
        }
    }

    /// Long enough that only a client that is really stuck runs into it on a loaded machine.
    static let defaultPatience = Duration.seconds(60)

    deinit {
        // A test that threw before `finish()`: let the thread end now rather than after its patience.
        state.withLock { $0.stopRequested = true }
    }

    /// Call once the client is done (its `send` has returned, so its bytes and its hang-up are already in the
    /// socket): reads whatever is left, closes both sockets and returns what the server saw. The thread has
    /// ended by the time this returns.
    func finish() async -> Transcript {
        state.withLock { $0.stopRequested = true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                if !state.finished { state.waiters.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
        return state.withLock { $0.transcript }
    }

    /// The serving thread's side. Owns the descriptors it is given.
    private struct Session {
        let state: Shared
        let patience: Duration

        /// How often a wait looks at the stop flag.
        static let slice: Int32 = 10

        func serve(listener: Int32, steps: [Step]) {
            let ending = run(listener: listener, steps: steps)
            let waiters = state.withLock { state in
                state.transcript.ending = ending
                state.finished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        private func run(listener: Int32, steps: [Step]) -> Transcript.Ending {
            var accepted: Int32 = -1
            do {
                defer { close(listener) }  // one connection: any later one is refused
                while accepted < 0 {
                    if let ending = waitReadable(listener, "a connection") { return ending }
                    accepted = accept(listener, nil, nil)
                    // Gone again before we took it (aborted by the client): keep waiting.
                    if accepted < 0 && ![EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED].contains(errno) {
                        return .failed("accept: \(String(cString: strerror(errno)))")
                    }
                }
            }
            defer { close(accepted) }
            guard LoopbackSocket.prepare(accepted) else { return .failed("fcntl: \(String(cString: strerror(errno)))") }

            var unread: [UInt8] = []  // received, but not yet taken by a `.line` step
            for (index, step) in steps.enumerated() {
                switch step {
                case .reply(let reply):
                    if let ending = transmit(Array(reply.utf8), to: accepted) { return ending }
                    state.withLock { $0.transcript.repliesSent += 1 }
                case .line:
                    while !unread.contains(UInt8(ascii: "\n")) {
                        if let ending = receive(accepted, into: &unread, "a line from the client (script step \(index))") { return ending }
                    }
                    unread.removeSubrange(...unread.firstIndex(of: UInt8(ascii: "\n"))!)
                case .bytes:
                    // Bytes left over from an earlier read count: they arrived after the step before.
                    if unread.isEmpty, let ending = receive(accepted, into: &unread, "bytes from the client (script step \(index))") { return ending }
                    unread = []
                }
            }
            while true {
                if let ending = receive(accepted, into: &unread, "the client to hang up after the script") { return ending }
            }
        }

        /// Waits until `descriptor` is readable (for a listener: a connection is pending). Returns how the
        /// session ends instead: stopped or out of patience. The stop flag is read before each poll, so the
        /// poll after `finish()` still sees everything the client sent and its hang-up, which were in the
        /// socket before `finish()` was called.
        private func waitReadable(_ descriptor: Int32, _ what: String) -> Transcript.Ending? {
            let deadline = ContinuousClock.now + patience
            while true {
                let stopping = state.withLock { $0.stopRequested }
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&entry, 1, stopping ? 0 : Self.slice)
                if ready > 0 { return nil }
                if ready < 0 && errno != EINTR { return .failed("poll: \(String(cString: strerror(errno)))") }
                if stopping { return .stopped(waitingFor: what) }
                if ContinuousClock.now >= deadline { return .timedOut(waitingFor: "\(what) (\(patience))") }
            }
        }

        /// Reads what is there (at least one byte) into `unread` and the transcript; returns how the session
        /// ends instead, `.clientHungUp` at the end of the stream.
        private func receive(_ connection: Int32, into unread: inout [UInt8], _ what: String) -> Transcript.Ending? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                if let ending = waitReadable(connection, what) { return ending }
                let count = recv(connection, &buffer, buffer.count, 0)
                if count == 0 { return .clientHungUp }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                    // A reset (the client closed with unread replies) ends the session like a hang-up.
                    return errno == ECONNRESET ? .clientHungUp : .failed("recv: \(String(cString: strerror(errno)))")
                }
                unread += buffer[..<count]
                state.withLock { $0.transcript.received += buffer[..<count] }
                return nil
            }
        }

        /// Sends `bytes`: in one write, as a reply this small always fits the socket's buffer.
        private func transmit(_ bytes: [UInt8], to connection: Int32) -> Transcript.Ending? {
            let deadline = ContinuousClock.now + patience
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, LoopbackSocket.sendFlags) }
                if count > 0 {
                    offset += count
                } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    var entry = pollfd(fd: connection, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, Self.slice)
                    if state.withLock({ $0.stopRequested }) { return .stopped(waitingFor: "room to send a reply") }
                    if ContinuousClock.now >= deadline { return .timedOut(waitingFor: "room to send a reply (\(patience))") }
                } else {
                    return errno == EPIPE || errno == ECONNRESET ? .clientHungUp : .failed("send: \(String(cString: strerror(errno)))")
                }
            }
            return nil
        }
    }
}
