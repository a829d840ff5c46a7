import ChatterCore
import Foundation
import Logging

/// Where chatterd sends the mails that carry codes: a closed set, chosen by `--mail`.
public enum MailDelivery: Sendable {
    /// Development: the server log and an outbox folder in the data directory.
    case log
    case smtp(SMTPConfiguration)

    /// `log`, or an SMTP URL (`SMTPConfiguration(url:)`).
    public init(_ text: String) throws {
        self = text == "log" ? .log : .smtp(try SMTPConfiguration(url: text))
    }
}

/// Makes the mail transport the configuration names.
public enum MailTransports {
    /// `dataDirectory`: where the log transport keeps its outbox folder.
    public static func make(_ delivery: MailDelivery, dataDirectory: String, logger: Logger) throws -> any MailTransport {
        switch delivery {
        case .log: try LogMailTransport(outbox: (dataDirectory as NSString).appendingPathComponent("outbox"), logger: logger)
        case .smtp(let smtp): try SMTPMailTransport(configuration: smtp, logger: logger)
        }
    }
}
