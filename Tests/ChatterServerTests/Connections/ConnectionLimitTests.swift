import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 24, finding 5: half-sent requests and idle connections were held as long as the client wished.
/// Each deadline closes its connection; past the cap, new connections wait for one to close.
@Suite struct ConnectionLimitTests {
    /// A plain TCP client that writes what it is given and reports what comes back, byte for byte.
    final class RawConnection: Sendable {
        let fd: Int32

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(fd) }

        /// Ends this side of the connection, as a client closing its socket does.
        func hangUp() { _ = shutdown(fd, Int32(SHUT_RDWR)) }

        func send(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }

        /// Waits up to `seconds` for the server: the bytes it sent, empty when it closed, nil when it stayed silent.
        /// The wait blocks a thread of its own, never one of the cooperative pool the server's handlers run on.
        func read(within seconds: Double) async -> [UInt8]? {
            let fd = self.fd
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, Int32(seconds * 1000)) == 1 else { return continuation.resume(returning: nil) }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = recv(fd, &buffer, buffer.count, 0)
                    continuation.resume(returning: count <= 0 ? [] : Array(buffer.prefix(count)))
                }
            }
        }
    }

    /// Short enough for a test, long enough that a loaded machine still answers a whole request within it.
    /// (3 s was not: once in a full parallel run the early 404 below took longer, and its body deadline closed
    /// the connection first.)
    static let deadline: Double = 6

    static let shortDeadlines: @Sendable (inout ServerConfiguration) -> Void = {
        $0.connections.headTimeout = deadline
        $0.connections.bodyTimeout = deadline
        $0.connections.idleTimeout = deadline
    }

    func port(_ h: Harness) throws -> Int {
        try #require(URL(string: h.client.baseURL)?.port)
    }

    @Test func aHalfSentHeadAStalledBodyAndAnIdleConnectionAreClosedAtTheirDeadlines() async throws {
        try await Harness.run(configure: Self.shortDeadlines) { h async throws in
            let port = try port(h)
            let slowloris = try RawConnection(port: port)
            slowloris.send("GET /health HTTP/1.1\r\nHost: chatterd\r\nX-Slow: a")
            let stalled = try RawConnection(port: port)
            stalled.send("POST /v1/auth/email/code HTTP/1.1\r\nHost: chatterd\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"em")
            let kept = try RawConnection(port: port)
            kept.send("GET /health HTTP/1.1\r\nHost: chatterd\r\n\r\n")
            let answer = try #require(await kept.read(within: 10))
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "a whole request is answered")
            for (name, connection) in [("half-sent head", slowloris), ("stalled body", stalled), ("idle after an answer", kept)] {
                #expect(await Self.closed(connection), "\(name): chatterd closed it")
            }
            #expect(try await h.get("/health").status == .ok)
        }
    }

    /// Found in review: an answer sent before its request's body (a 404 needs none), then the last byte of
    /// the body, left the connection with no deadline at all; so did pipelined requests' bookkeeping.
    @Test func anEarlyAnswerAndPipelinedRequestsLeaveNoMomentWithoutADeadline() async throws {
        try await Harness.run(configure: Self.shortDeadlines) { h async throws in
            let port = try port(h)
            let early = try RawConnection(port: port)
            early.send("POST /no-such-route HTTP/1.1\r\nHost: chatterd\r\nContent-Length: 1\r\n\r\n")
            let answer = try #require(await early.read(within: 10))
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 404"))
            early.send("x")
            #expect(await Self.closed(early), "closed after the late body, at the idle deadline")

            let pipelined = try RawConnection(port: port)
            pipelined.send("GET /health HTTP/1.1\r\nHost: chatterd\r\n\r\nGET /health HTTP/1.1\r\nHost: chatterd\r\n\r\n")
            var text = ""
            for _ in 0..<10 where text.components(separatedBy: "HTTP/1.1 200").count < 3 {
                guard let bytes = await pipelined.read(within: 10), !bytes.isEmpty else { break }
                text += String(decoding: bytes, as: UTF8.self)
            }
            #expect(text.components(separatedBy: "HTTP/1.1 200").count == 3, "both pipelined requests are answered")
            #expect(await Self.closed(pipelined), "then the connection idles out")
        }
    }

    /// Everything `connection` sends until it closes or stays silent for `seconds`.
    /// Reads until chatterd closes or says nothing for `seconds`: a wait, not a latency bound, long enough for
    /// a whole parallel suite on two cores (a 5 s window once saw nothing there).
    static func answer(_ connection: RawConnection, within seconds: Double = 20) async -> String {
        var text = ""
        while let bytes = await connection.read(within: seconds), !bytes.isEmpty { text += String(decoding: bytes, as: UTF8.self) }
        return text
    }

    /// Threat model, Listener: a head with too many fields, or one field past 80 KiB, is refused with a 4xx
    /// and its connection closed, and chatterd goes on serving.
    @Test func hugeOrNumerousHeadersAreRefusedAndTheirConnectionClosed() async throws {
        try await Harness.run { h async throws in
            let port = try port(h)
            let many = (0..<1_100).map { "X-Field-\($0): v\r\n" }.joined()
            let long = "X-Long: " + String(repeating: "a", count: 100 * 1024) + "\r\n"
            for (name, fields) in [("1,100 fields", many), ("a 100 KiB field", long)] {
                let connection = try RawConnection(port: port)
                connection.send("GET /health HTTP/1.1\r\nHost: chatterd\r\n" + fields + "\r\n")
                let text = await Self.answer(connection)
                #expect(text.hasPrefix("HTTP/1.1 4") || text.isEmpty, "\(name): \(text.prefix(40))")
                #expect(!text.contains("HTTP/1.1 200"), "\(name) was served")
                #expect(await Self.closed(connection), "\(name): chatterd closed it")
            }
            #expect(try await h.get("/health").status == .ok)
        }
    }

    /// Threat model, Listener: a request with both `Content-Length` and `Transfer-Encoding`, the way a request
    /// is smuggled past a proxy that reads the other one, is refused; what its body hides is never served.
    @Test func aRequestWithBothLengthsIsRefusedAndWhatItHidesIsNeverServed() async throws {
        try await Harness.run { h async throws in
            let connection = try RawConnection(port: try port(h))
            let hidden = "GET /v1/me HTTP/1.1\r\nHost: chatterd\r\n\r\n"
            let body = "0\r\n\r\n" + hidden
            connection.send(
                "POST /v1/auth/refresh HTTP/1.1\r\nHost: chatterd\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + body)
            let text = await Self.answer(connection)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(text.prefix(60))")
            #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer, none for the hidden request: \(text)")
            #expect(await Self.closed(connection))
            #expect(try await h.get("/health").status == .ok)
        }
    }

    /// Whether chatterd closes `connection` within `seconds` (its deadlines in these tests are `deadline`).
    static func closed(_ connection: RawConnection, within seconds: Int = 20) async -> Bool {
        for _ in 0..<seconds {
            guard let bytes = await connection.read(within: 1) else { continue }
            if bytes.isEmpty { return true }
        }
        return false
    }

    @Test func pastTheCapNewConnectionsWaitUntilOneCloses() async throws {
        try await Harness.run(configure: { $0.connections.maximumConnections = 4 }) { h async throws in
            let port = try port(h)
            let held = try (0..<4).map { _ in try RawConnection(port: port) }
            // Each held connection is accepted (the cap counts it) once it has been read from.
            for connection in held { connection.send("GET /health HTTP/1.1\r\nHost: chatterd\r\n\r\n") }
            for connection in held { #expect(await connection.read(within: 20).map { !$0.isEmpty } == true) }
            let waiting = try RawConnection(port: port)
            waiting.send("GET /health HTTP/1.1\r\nHost: chatterd\r\n\r\n")
            #expect(await waiting.read(within: 1.5) == nil, "the fifth connection waits in the kernel's queue")
            held[0].hangUp()
            let answer = await waiting.read(within: 10)
            #expect(answer.map { String(decoding: $0, as: UTF8.self).hasPrefix("HTTP/1.1 200") } == true, "answered once one closed")
        }
    }

    @Test func theLimitsAreChecked() throws {
        #expect(ConnectionLimits().connectionCap(descriptorLimit: 256) == 192)
        #expect(ConnectionLimits().connectionCap(descriptorLimit: 20) == 16)
        var limits = ConnectionLimits()
        limits.maximumConnections = 50
        #expect(limits.connectionCap(descriptorLimit: 256) == 50)
        for bad in [["--head-timeout", "0"], ["--idle-timeout", "-1"], ["--max-connections", "0"], ["--body-timeout", "99999"]] {
            var config = ServerConfiguration()
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try config.apply(environment: [:], arguments: bad)
                try config.validate()
            }
        }
        // Raised to the hard limit: raising again changes nothing.
        let raised = DescriptorLimit.raise()
        #expect(DescriptorLimit.raise() == (raised.after, raised.after))
    }
}
