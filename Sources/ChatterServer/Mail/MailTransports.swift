import Foundation
import Logging

/// Picks the mail transport the configuration names.
public enum MailTransports {
    public static func make(_ config: ServerConfiguration, logger: Logger) throws -> any MailTransport {
        guard config.mail == "log" else { throw ConfigurationError("mail transport \(config.mail) is not supported yet") }
        return LogOnlyMailTransport(logger: logger)
    }
}

/// Writes codes to the server log (development only).
struct LogOnlyMailTransport: MailTransport {
    let logger: Logger

    func send(_ message: MailMessage) async throws {
        logger.notice(">>> code for \(message.to): \(message.code ?? "(none)") <<<")
    }
}
