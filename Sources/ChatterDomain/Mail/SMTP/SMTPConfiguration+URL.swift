import ChatterCore
import Foundation

extension SMTPConfiguration {
    /// The one-string form an operator puts in `CHATTERD_MAIL`: `smtp://user:password@host:587`
    /// (STARTTLS), `smtps://user:password@host:465` (implicit TLS) or `smtp+insecure://host:1025` (no TLS,
    /// for a local test server only). User and password are percent-decoded, so either may contain `@` or `:`.
    /// Errors never repeat the URL, which holds the password.
    public init(url text: String) throws {
        guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/" else {
            throw MailError("invalid SMTP URL: expected smtp://user:password@host:587 or smtps://user:password@host:465")
        }
        let security: Security
        switch url.scheme?.lowercased() {
        case "smtp": security = .startTLS
        case "smtps": security = .implicitTLS
        case "smtp+insecure": security = .insecurePlaintext
        default: throw MailError("invalid SMTP URL: the scheme must be smtp (STARTTLS), smtps (implicit TLS) or smtp+insecure")
        }
        let credentials = url.user.map { Credentials(username: $0, password: url.password ?? "") }
        self.init(host: host, port: url.port, security: security, credentials: credentials)
    }
}
