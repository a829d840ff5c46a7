import ChatterServer
import Synchronization

/// Receives chatterd's mail in memory, so a test (or a scripted prompt) reads the code a user would find
/// in their inbox. Synchronous, unlike the server tests' actor, because prompt answers are synchronous.
final class CapturingMail: MailTransport {
    private let messages = Mutex<[MailMessage]>([])

    func send(_ message: MailMessage) async throws {
        messages.withLock { $0.append(message) }
    }

    func lastCode(to address: String) -> String? {
        messages.withLock { $0.last { $0.to == address.lowercased() }?.code }
    }

    func count(to address: String) -> Int {
        messages.withLock { $0.filter { $0.to == address.lowercased() }.count }
    }
}
