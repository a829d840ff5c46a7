import NIOSSL

/// TLS for every connection chatterd opens (the providers, Apple, PostgreSQL, SMTP): TLS 1.2 at least, as
/// RFC 8996 requires. SwiftNIO SSL's client default still offers 1.0 and 1.1, which a downgrading network
/// could then force.
public enum ClientTLS {
    /// The client configuration: the system's roots and the server's name checked, unless `verifying` is
    /// false (PostgreSQL's `sslmode=prefer`, which encrypts without asking who answers).
    public static func configuration(verifying: Bool = true) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if !verifying { tls.certificateVerification = .none }
        return tls
    }
}
