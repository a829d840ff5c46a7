import Foundation
import Logging

/// Mail telling an account's owner about a change they should know of even when they did not make it (a
/// second factor turned on or off, a recovery code used), sent to the address the account verified. A
/// notice that cannot be sent is logged, never a reason to fail what it reports.
struct AccountNotices: Sendable {
    let users: any UserRepository
    let mail: any MailTransport
    let sender: String
    let logger: Logger

    func send(to userID: UUID, subject: String, body: String) async {
        do {
            guard let address = try await users.identities(of: userID).first(where: { $0.emailVerified && $0.email != nil })?.email else { return }
            try await mail.send(MailMessage(from: sender, to: address, subject: subject, body: body + "\n"))
        } catch {
            logger.error("sending an account notice failed", metadata: ["error": "\(error)"])
        }
    }
}
