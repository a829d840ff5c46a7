import ChatterKit
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// ChatterKit's transport when a pin is set: every request gets its own TLS connection whose handshake
/// checks the pin (`PinCheck.handler`), so no connection trusts anything but the pinned key.
/// async-http-client has no per-connection verification hook, which is why this one exists; SwiftNIO's
/// HTTP/1.1 codec reads and writes the messages.
final class PinnedTransport: CLITransport {
    let pin: String
    let context: NIOSSLContext
    let timeout: Duration
    static let maximumBody = 8 * 1024 * 1024

    struct Timeout: Error, CustomStringConvertible {
        var description: String { "no answer in time" }
    }

    init(pin: String, timeout: Duration = .seconds(30)) throws {
        self.pin = pin
        self.timeout = timeout
        context = try NIOSSLContext(configuration: .chatterClient)
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await withThrowingTaskGroup(of: TransportResponse.self) { group in
            group.addTask { try await self.exchange(request) }
            group.addTask {
                try await Task.sleep(for: self.timeout)
                throw Timeout()
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() else { throw Timeout() }
            return response
        }
    }

    private func exchange(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.scheme == "https", let host = request.url.host else {
            throw CLIError(code: "usage", message: "--pin needs an https:// server", exitCode: 64)
        }
        let port = request.url.port ?? 443
        let outcome = PinCheck.Outcome()
        let (pin, context) = (self.pin, self.context)
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(PinCheck.handler(expected: pin, host: host, context: context, outcome: outcome))
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
            return try await channel.executeThenClose { inbound, outbound in
                var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: Self.target(request.url))
                head.headers.add(name: "Host", value: request.url.port.map { "\(host):\($0)" } ?? host)
                for (name, value) in request.headers { head.headers.add(name: name, value: value) }
                head.headers.add(name: "Content-Length", value: String(request.body?.count ?? 0))
                head.headers.add(name: "Connection", value: "close")
                // NIOSSL holds these until the handshake has verified the pin; a mismatch sends nothing.
                try await outbound.write(.head(head))
                if let body = request.body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))
                return try await Self.read(inbound)
            }
        } catch {
            throw outcome.mismatch ?? error
        }
    }

    /// Connections close after each answer: nothing to end.
    func shutdown() async {}

    static func target(_ url: URL) -> String {
        let path = url.path.isEmpty ? "/" : url.path
        return url.query.map { path + "?" + $0 } ?? path
    }

    static func read(_ inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>) async throws -> TransportResponse {
        var status = 0
        var headers: [String: String] = [:]
        var body = ByteBuffer()
        for try await part in inbound {
            switch part {
            case .head(let head):
                status = Int(head.status.code)
                for header in head.headers { headers[header.name.lowercased()] = header.value }
            case .body(var chunk):
                guard body.readableBytes + chunk.readableBytes <= maximumBody else {
                    throw CLIError(code: "response_too_large", message: "the answer is too large")
                }
                body.writeBuffer(&chunk)
            case .end:
                return TransportResponse(status: status, headers: headers, body: Data(body.readableBytesView))
            }
        }
        throw ChannelError.inputClosed
    }
}
