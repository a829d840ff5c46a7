import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Synchronization

/// Receives chatterd's mail in memory, so a test (or a scripted prompt) reads the code a user would find
/// in their inbox. Synchronous, because prompt answers are; addresses compare ignoring case, as chatterd
/// normalizes them before sending.
public final class CapturingMail: MailTransport {
    private let received = Mutex<[MailMessage]>([])

    public init() {}

    public func send(_ message: MailMessage) async throws {
        received.withLock { $0.append(message) }
    }

    /// Every message, oldest first.
    public var messages: [MailMessage] { received.withLock { $0 } }

    public func lastCode(to address: String) -> String? {
        received.withLock { $0.last { $0.to == address.lowercased() }?.code }
    }

    public func count(to address: String) -> Int {
        received.withLock { $0.filter { $0.to == address.lowercased() }.count }
    }
}
