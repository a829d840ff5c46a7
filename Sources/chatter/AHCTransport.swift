import AsyncHTTPClient
import ChatterKit
import Foundation
import NIOCore
import NIOSSL

/// The terminal client's transports: ChatterKit's, plus an end.
protocol CLITransport: HTTPTransport {
    func shutdown() async
}

/// ChatterKit's transport over async-http-client, for the terminal client. It can trust one given
/// certificate (chatterd's development `chatterd.crt`) besides the system's roots. With a pin,
/// `PinnedTransport` is used instead.
final class AHCTransport: CLITransport {
    let client: HTTPClient
    let timeout: TimeAmount

    /// - Parameter certificatePath: a PEM certificate to trust besides the system's roots.
    init(certificatePath: String?, timeout: TimeAmount = .seconds(30)) throws {
        var tls = TLSConfiguration.chatterClient
        if let certificatePath { tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(certificatePath))] }
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
