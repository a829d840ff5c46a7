import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-connection server that plays a script: the first reply on connect, then the next after each
/// line it receives. For what a well-behaved server never does, such as a reply injected after STARTTLS.
final class ScriptedSMTPServer: Sendable {
    private let listener: SilentListener
    var port: Int { listener.port }

    init(_ replies: [String]) throws {
        let listener = try SilentListener()
        self.listener = listener
        // Blocking socket calls on a thread of its own, so they never hold up the test's executor.
        Thread.detachNewThread {
            let connection = accept(listener.descriptor, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var pending = replies[...]
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let reply = pending.first {
                // Each reply goes out in one write, so an injected line arrives together with the reply before it.
                _ = reply.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, 0) }
                pending = pending.dropFirst()
                var newlines = 0
                while newlines == 0 {
                    let count = recv(connection, &buffer, buffer.count, 0)
                    if count <= 0 { return }
                    newlines = buffer[..<count].filter { $0 == UInt8(ascii: "\n") }.count
                }
            }
            while recv(connection, &buffer, buffer.count, 0) > 0 {}
        }
    }

    func stop() {
        listener.stopListening()
    }
}
