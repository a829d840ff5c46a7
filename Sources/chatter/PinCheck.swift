import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Checks a server's public-key pin (base64 SHA-256 of the leaf's SubjectPublicKeyInfo, as chatterd prints
/// it) with one TLS handshake before any request. async-http-client offers no per-connection verification
/// hook, so the client then trusts exactly the leaf that matched (besides the system roots).
enum PinCheck {
    struct Mismatch: Error, CustomStringConvertible {
        var expected: String
        var found: String
        var description: String { "the server's public key pin is \(found), not the expected \(expected)" }
    }

    static func pin(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    /// Connects to `host:port`, reads the certificate chain the server presents, and returns the leaf when
    /// its pin is `expected`.
    static func verify(host: String, port: Int, expected: String) async throws -> NIOSSLCertificate {
        let context = try NIOSSLContext(configuration: .makeClientConfiguration())
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = loop.makePromise(of: Void.self)
        let leaf = LeafBox()
        let serverName = host.first?.isNumber == true || host.contains(":") ? nil : host
        let channel = try await ClientBootstrap(group: loop)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let waiter = HandshakeWaiter(promise: handshake)
                    // This probe only reads the leaf; the pin decides, not the chain. Once it has the leaf
                    // the probe is done, so it does not wait for the rest of the handshake.
                    let tls = try NIOSSLClientHandler(context: context, serverHostname: serverName) { chain, promise in
                        leaf.set(chain.first)
                        promise.succeed(.certificateVerified)
                        waiter.finish(.success(()))
                    }
                    try channel.pipeline.syncOperations.addHandlers([tls, waiter])
                }
            }
            .connect(host: host, port: port).get()
        defer { channel.close(promise: nil) }
        try await handshake.futureResult.get()
        guard let certificate = leaf.get() else { throw Mismatch(expected: expected, found: "(no certificate)") }
        let found = try pin(of: certificate)
        guard found == expected else { throw Mismatch(expected: expected, found: found) }
        return certificate
    }
}

private final class LeafBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: NIOSSLCertificate?
    func set(_ certificate: NIOSSLCertificate?) { lock.withLock { value = certificate } }
    func get() -> NIOSSLCertificate? { lock.withLock { value } }
}

/// Completes when the server's certificate has been seen or the connection failed, whichever comes
/// first. Everything here runs on the channel's event loop, so `done` needs no lock.
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

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(ChannelError.ioOnClosedChannel))
        context.fireChannelInactive()
    }
}
