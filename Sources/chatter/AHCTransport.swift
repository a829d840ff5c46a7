import AsyncHTTPClient
import ChatterKit
import Foundation
import NIOCore
import NIOSSL

/// ChatterKit's transport over async-http-client, for the terminal client. It can trust one given
/// certificate (chatterd's development `chatterd.crt`) and require the server's public-key pin.
final class AHCTransport: HTTPTransport {
    let client: HTTPClient
    let timeout: TimeAmount

    /// - Parameters:
    ///   - certificatePath: a PEM certificate to trust besides the system's roots.
    ///   - pinnedLeaf: a certificate whose pin was checked (see `PinCheck`); trusted like `certificatePath`.
    init(certificatePath: String?, pinnedLeaf: NIOSSLCertificate? = nil, timeout: TimeAmount = .seconds(30)) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        var extra: [NIOSSLCertificate] = []
        if let certificatePath { extra += try NIOSSLCertificate.fromPEMFile(certificatePath) }
        if let pinnedLeaf { extra.append(pinnedLeaf) }
        if !extra.isEmpty { tls.additionalTrustRoots = [.certificates(extra)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .http1Only
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.timeout = timeout
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .RAW(value: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: timeout)
        let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return TransportResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}
