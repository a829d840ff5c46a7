import ChatterCore

/// One plain-text message chatterd sends (sign-in and password-reset codes).
public struct MailMessage: Sendable, Equatable {
    public var from: String
    public var to: String
    public var subject: String
    public var body: String
    /// The one-time code the message carries, so the development transport can mark it visibly.
    /// Transports that deliver mail must never log it.
    public var code: String?

    public init(from: String, to: String, subject: String, body: String, code: String? = nil) {
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.code = code
    }
}

/// How chatterd sends mail: `LogMailTransport` in development, `SMTPMailTransport` in production.
public protocol MailTransport: Sendable {
    func send(_ message: MailMessage) async throws
}

/// A delivery failure, with what the server said, for the operator's log.
public struct MailError: Error, CustomStringConvertible, Equatable {
    public var description: String
    /// The mail server refused the recipient for good (a 5xx answer to RCPT TO): the address, not the
    /// server, is what to fix. The pages say so; a retry would be refused again.
    public var recipientRefused: Bool
    public init(_ description: String, recipientRefused: Bool = false) {
        self.description = description
        self.recipientRefused = recipientRefused
    }
}
