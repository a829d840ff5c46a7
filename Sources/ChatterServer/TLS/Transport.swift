import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL

/// The server builder for the configured transport, and what to tell the operator about it.
public struct PreparedTransport: Sendable {
    public var server: HTTPServerBuilder
    public var scheme: String
    /// Lines for the start-up banner: certificate path and its public-key pin.
    public var notes: [String]

    /// The server for `config`'s transport, with its connection deadlines (`ConnectionLimits`).
    public static func prepare(_ config: ServerConfiguration, logger: Logger = Logger(label: "chatterd")) throws -> PreparedTransport {
        switch config.transport {
        case .http:
            return PreparedTransport(
                server: config.connections.http1(secure: false, logger: logger), scheme: "http",
                notes: ["serving plain HTTP: put a TLS-terminating proxy in front"])
        case .tls(let cert, let key):
            return try tls(certificatePath: cert, keyPath: key, note: "", http1: config.connections.http1(secure: true, logger: logger))
        case .developmentTLS:
            let files = try DevelopmentCertificate.ensure(in: config.dataDirectory, names: config.hostnames)
            return try tls(
                certificatePath: files.certificatePath, keyPath: files.keyPath, note: files.generated ? " (generated now)" : "",
                http1: config.connections.http1(secure: true, logger: logger))
        }
    }

    /// The listener's TLS: the PEM certificate chain and key, TLS 1.2 at least.
    static func tlsConfiguration(certificatePath: String, keyPath: String) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        // SwiftNIO SSL's server default still accepts TLS 1.0; RFC 8996 forbids 1.0 and 1.1.
        tls.minimumTLSVersion = .tlsv12
        return tls
    }

    static func tls(certificatePath: String, keyPath: String, note: String, http1: HTTPServerBuilder) throws -> PreparedTransport {
        let pin = try PublicKeyPin.sha256(ofCertificatePEM: String(contentsOfFile: certificatePath, encoding: .utf8))
        return PreparedTransport(
            server: try .tls(http1, tlsConfiguration: tlsConfiguration(certificatePath: certificatePath, keyPath: keyPath)), scheme: "https",
            notes: ["certificate: \(certificatePath)\(note)", "public key pin (SHA-256 SPKI): \(pin)"])
    }
}
