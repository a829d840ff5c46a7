import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real SMTP server (aiosmtpd) that `.ci/smtp-server` starts, as described by the variables in the
/// env file it writes. Absent those, the tests that need it are skipped, with this reason in the output.
struct SMTPTestServer: Sendable {
    static let current = SMTPTestServer(ProcessInfo.processInfo.environment)
    static let unavailable: Comment = "no test SMTP server: run `.ci/smtp-server && source /tmp/chatter-smtp.env` before `swift test`"

    let host: String
    let plainPort: Int
    let startTLSPort: Int
    let implicitTLSPort: Int
    let rejectPort: Int
    let certificate: String
    let maildir: String
    let user: String
    let password: String
    let rejectedRecipient: String

    init?(_ environment: [String: String]) {
        func value(_ name: String) -> String? { environment["CHATTER_TEST_SMTP_\(name)"] }
        guard let plain = value("PLAIN_PORT").flatMap(Int.init), let startTLS = value("STARTTLS_PORT").flatMap(Int.init),
            let implicitTLS = value("IMPLICIT_TLS_PORT").flatMap(Int.init), let reject = value("REJECT_PORT").flatMap(Int.init),
            let certificate = value("CERT"), let maildir = value("MAILDIR"), let user = value("USER"), let password = value("PASSWORD")
        else { return nil }
        host = value("HOST") ?? "127.0.0.1"
        (plainPort, startTLSPort, implicitTLSPort, rejectPort) = (plain, startTLS, implicitTLS, reject)
        (self.certificate, self.maildir, self.user, self.password) = (certificate, maildir, user, password)
        rejectedRecipient = value("REJECTED_RECIPIENT") ?? "nobody@reject.test"
    }

    /// The message in the maildir whose text contains `marker`: the maildir is shared by tests running in
    /// parallel (and by earlier runs), so each test finds its own message by a unique marker.
    func message(containing marker: String, waiting: Duration = .seconds(5)) async throws -> String {
        let directory = (maildir as NSString).appendingPathComponent("new")
        let deadline = ContinuousClock.now + waiting
        repeat {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let text = try String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8)
                if text.contains(marker) { return text }
            }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        throw MailError("no message containing \(marker) in \(directory)")
    }
}

/// A loopback TCP port that completes connections (from the listen backlog) but never accepts or answers
/// them: a hung server. With `listening: false` the port is only bound, so connecting to it is refused while
/// no other socket can take the port over (as one could, in a parallel run, after closing a listener).
/// No thread but the test's touches its descriptor, so `close()` may close it.
final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init(listening: Bool = true) throws {
        let socket = try LoopbackSocket(listening: listening)
        (descriptor, port) = (socket.descriptor, socket.port)
    }

    /// Call exactly once, when the test is done with the port.
    func close() {
        _ = systemClose(descriptor)
    }
}

/// `close(2)`, for types whose own `close()` hides it.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// A TCP socket bound to an ephemeral loopback port, non-blocking, listening or only bound. The caller owns
/// the descriptor and must close it exactly once.
struct LoopbackSocket {
    let descriptor: Int32
    let port: Int

    init(listening: Bool) throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw MailError("cannot open a loopback socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socket in
                bind(descriptor, socket, length) == 0 && (!listening || listen(descriptor, 8) == 0)
                    && getsockname(descriptor, socket, &length) == 0
            }
        }
        guard bound, Self.prepare(descriptor) else {
            let reason = String(cString: strerror(errno))
            _ = systemClose(descriptor)
            throw MailError("cannot open a loopback socket: \(reason)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Non-blocking, so that a call after `poll()` said "ready" cannot block after all (a connection reset in
    /// between); and no SIGPIPE for writing to a closed connection on Darwin (Linux: `sendFlags`).
    static func prepare(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            var one: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else { return false }
        #endif
        let flags = fcntl(descriptor, F_GETFL)
        return flags >= 0 && fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
    }

    #if canImport(Glibc)
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        static let sendFlags: Int32 = 0
    #endif
}
