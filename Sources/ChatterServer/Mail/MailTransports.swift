import Foundation
import Logging

/// Picks the mail transport the configuration names: `log` (development) or an SMTP URL.
public enum MailTransports {
    public static func make(_ config: ServerConfiguration, logger: Logger) throws -> any MailTransport {
        if config.mail == "log" {
            return try LogMailTransport(outbox: (config.dataDirectory as NSString).appendingPathComponent("outbox"), logger: logger)
        }
        return try SMTPMailTransport(configuration: SMTPConfiguration(url: config.mail), logger: logger)
    }
}
