import ChatterCore
import Foundation
import NIOCore
import NIOSSL

/// Hands each reply the server sends to whoever waits for it. SMTP without PIPELINING is strictly
/// one command, one reply, so there is at most one waiter; a reply that arrives first (the greeting)
/// is kept until asked for. Once the connection fails, every later wait fails the same way.
package final class SMTPClientHandler: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer

    private var parser = SMTPReplyParser()
    private var ready: CircularBuffer<SMTPReply> = []
    private var waiter: EventLoopPromise<SMTPReply>?
    private var failure: MailError?
    private let peer: String

    package init(peer: String) { self.peer = peer }

    /// Bytes have arrived that no wait has consumed: before STARTTLS that means injected plaintext.
    package var hasUnreadInput: Bool { !ready.isEmpty || parser.hasUnreadBytes }

    package func expectReply(_ promise: EventLoopPromise<SMTPReply>) {
        if let reply = ready.popFirst() {
            promise.succeed(reply)
        } else if let failure {
            promise.fail(failure)
        } else {
            waiter = promise
        }
    }

    /// Ends the session with `error`; a timer calls this with the timeout it stands for.
    package func fail(_ error: MailError) {
        if failure == nil { failure = error }
        waiter?.fail(failure ?? error)
        waiter = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        parser.append(unwrapInboundIn(data))
        do {
            while let reply = try parser.next() {
                if let waiter {
                    self.waiter = nil
                    waiter.succeed(reply)
                } else {
                    ready.append(reply)
                }
            }
        } catch {
            fail(error)
            context.close(promise: nil)
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Self.describe(error, peer: peer))
        context.close(promise: nil)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        fail(MailError("SMTP server \(peer) closed the connection"))
        context.fireChannelInactive()
    }

    package static func describe(_ error: any Error, peer: String) -> MailError {
        switch error {
        case let error as MailError: error
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: MailError("TLS with SMTP server \(peer) failed: \(tlsReason(error))")
        default: MailError("connection to SMTP server \(peer) failed: \(error)")
        }
    }

    /// "certificate verify failed" out of BoringSSL's "error:1000007d:SSL routines:OPENSSL_internal:
    /// CERTIFICATE_VERIFY_FAILED at /path/to/handshake.cc:320", which is too long for a one-line error.
    private static func tlsReason(_ error: any Error) -> String {
        let text = "\(error)"
        guard let reason = text.range(of: "[A-Z0-9_]{4,}(?= at )", options: .regularExpression) else { return text }
        return text[reason].lowercased().replacingOccurrences(of: "_", with: " ")
    }
}
