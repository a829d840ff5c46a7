import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A server's public-key pin: base64 SHA-256 of the leaf's SubjectPublicKeyInfo, as chatterd prints it.
/// With a pin, the pin alone decides whom chatter talks to, on every connection (see `PinnedTransport`):
/// a certificate with another key is refused during the handshake, whatever CA signed it, before a
/// request byte is sent.
enum PinCheck {
    struct Mismatch: Error, CustomStringConvertible {
        var expected: String
        var found: String
        var description: String { "the server's public key pin is \(found), not the expected \(expected)" }
    }

    static func pin(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    /// A TLS handler that accepts the server only when its leaf's pin is `expected`. Chain and name checks
    /// are replaced by the pin: that is what pinning asks for. A mismatch is left in `outcome`.
    static func handler(expected: String, host: String, context: NIOSSLContext, outcome: Outcome) throws -> NIOSSLClientHandler {
        let serverName = host.first?.isNumber == true || host.contains(":") ? nil : host
        return try NIOSSLClientHandler(context: context, serverHostname: serverName) { chain, promise in
            let found = chain.first.flatMap { try? pin(of: $0) } ?? "(no certificate)"
            if found == expected {
                promise.succeed(.certificateVerified)
            } else {
                outcome.set(Mismatch(expected: expected, found: found))
                promise.succeed(.failed)
            }
        }
    }

    /// Connects to `host:port` and completes the handshake only, so a wrong pin is reported before
    /// anything else happens.
    static func verify(host: String, port: Int, expected: String) async throws {
        let context = try NIOSSLContext(configuration: .chatterClient)
        let outcome = Outcome()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = loop.makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            try handler(expected: expected, host: host, context: context, outcome: outcome), HandshakeWaiter(promise: handshake),
                        ])
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }
        do {
            try await handshake.futureResult.get()
        } catch {
            throw outcome.mismatch ?? error
        }
    }

    /// What the verification callback saw, read after the handshake.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Mismatch?
        func set(_ mismatch: Mismatch) { lock.withLock { value = mismatch } }
        var mismatch: Mismatch? { lock.withLock { value } }
    }
}

/// Completes when the handshake has finished or the connection failed, whichever comes first.
/// Everything here runs on the channel's event loop, so `done` needs no lock.
private final class HandshakeWaiter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Void>
    var done = false

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func finish(_ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { finish(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(ChannelError.ioOnClosedChannel))
        context.fireChannelInactive()
    }
}
