import ChatterCore

/// Where and how `SMTPMailTransport` delivers: a submission server (port 587 with STARTTLS, or 465
/// with implicit TLS) and the account chatterd sends from.
public struct SMTPConfiguration: Sendable {
    public enum Security: Sendable, Equatable {
        /// Port 587 style: plaintext greeting, then STARTTLS. Delivery fails if the server does not offer it,
        /// so an attacker who strips STARTTLS from the reply cannot downgrade the session.
        case startTLS
        /// Port 465 style: TLS from the first byte.
        case implicitTLS
        /// No encryption at all: codes and the password cross the network readable. Only for a local test
        /// server on loopback.
        case insecurePlaintext
    }

    public enum Trust: Sendable, Equatable {
        /// The system's certificate authorities: right for any public mail provider.
        case system
        /// The CAs in this PEM file (or directory) instead of the system's: a private CA.
        case caFile(String)
        /// The system's CAs and also this certificate: a server with a self-signed certificate.
        case systemAnd(certificateFile: String)
    }

    public struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        public var username: String
        public var password: String
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
        // So that printing or logging a configuration never shows the password.
        public var description: String { "Credentials(username: \(username), password: <redacted>)" }
        public var debugDescription: String { description }
    }

    public struct Timeouts: Sendable {
        public var connect: Duration
        /// For each reply, including the one to the message data.
        public var command: Duration
        /// For the whole delivery, connecting included: a sign-in should not hang on a slow server.
        public var total: Duration
        public init(connect: Duration = .seconds(10), command: Duration = .seconds(30), total: Duration = .seconds(60)) {
            self.connect = connect
            self.command = command
            self.total = total
        }
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var credentials: Credentials?
    /// The envelope sender (MAIL FROM, where bounces go). nil uses each message's From address.
    public var envelopeFrom: String?
    /// The name chatterd gives itself in EHLO; some servers refuse names that are not fully qualified.
    public var heloName: String
    public var timeouts: Timeouts
    public var trust: Trust

    public init(
        host: String, port: Int? = nil, security: Security = .startTLS, credentials: Credentials? = nil,
        envelopeFrom: String? = nil, heloName: String = "localhost", timeouts: Timeouts = Timeouts(), trust: Trust = .system
    ) {
        self.host = host
        self.port = port ?? (security == .implicitTLS ? 465 : 587)
        self.security = security
        self.credentials = credentials
        self.envelopeFrom = envelopeFrom
        self.heloName = heloName
        self.timeouts = timeouts
        self.trust = trust
    }
}
