@testable import ChatterServer

/// Receives chatterd's mail in memory, so a test can read the code a user would find in their inbox.
actor CapturingMail: MailTransport {
    private(set) var messages: [MailMessage] = []

    func send(_ message: MailMessage) async throws {
        messages.append(message)
    }

    func lastCode(to address: String) -> String? {
        messages.last { $0.to == address }?.code
    }

    func count(to address: String) -> Int {
        messages.filter { $0.to == address }.count
    }
}
