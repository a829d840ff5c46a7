import NIOSSL

extension TLSConfiguration {
    /// Every connection `chatter` makes offers TLS 1.2 at least (RFC 8996): SwiftNIO SSL's client default
    /// still offers 1.0 and 1.1, which a downgrading network could then force.
    static var chatterClient: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        return tls
    }
}
