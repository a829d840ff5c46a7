import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOTLS

/// Closes a connection that misses a deadline of `ConnectionLimits`: the TLS handshake, the first request's
/// head, a request's body, or the next request on a kept-alive connection. It sits after the HTTP decoder,
/// so it sees requests as their parts arrive; a client sending a header a byte at a time never completes a
/// head, and the deadline that was armed when the connection started waiting closes it.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the connection is waiting for, and so which deadline applies.
    enum Wait: String {
        case handshake = "tls_handshake", head, body, idle
    }

    let limits: ConnectionLimits
    let secure: Bool
    let logger: Logger
    private var timer: Scheduled<Void>?
    private var waiting: Wait?
    private var receiving = false

    init(limits: ConnectionLimits, secure: Bool, logger: Logger) {
        self.limits = limits
        self.secure = secure
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard waiting == nil else { return }
        arm(secure ? .handshake : .head, context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if waiting == .handshake, case .handshakeCompleted = event as? TLSUserEvent { arm(.head, context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            receiving = true
            arm(.body, context)
        case .body:
            break
        case .end:
            // The request is in: the server's own work has no deadline here.
            receiving = false
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), !receiving { arm(.idle, context) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    private func arm(_ wait: Wait, _ context: ChannelHandlerContext) {
        disarm()
        waiting = wait
        let seconds = switch wait {
        case .handshake: limits.tlsHandshakeTimeout
        case .head: limits.headTimeout
        case .body: limits.bodyTimeout
        case .idle: limits.idleTimeout
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            let (handler, context) = loopBound.value
            handler.expired(wait, seconds, context)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    private func expired(_ wait: Wait, _ seconds: Double, _ context: ChannelHandlerContext) {
        timer = nil
        ChatterMetrics.connectionClosed(wait.rawValue)
        // An idle kept-alive connection ending is routine; the others are what a slow or stalled client does.
        logger.log(
            level: wait == .idle ? .debug : .notice, "closed a connection that missed its deadline",
            metadata: ["deadline": "\(wait.rawValue)", "seconds": "\(seconds)", "peer": "\(context.channel.remoteAddress?.ipAddress ?? "?")"])
        context.close(promise: nil)
    }
}

/// Hummingbird's connection cap (it stops accepting at the limit, so waiting connections queue in the
/// kernel rather than holding descriptors), logging when the cap is reached and when it is left.
struct ConnectionCap: AvailableConnectionsDelegate {
    let maximum: Int
    let logger: Logger
    private var open = 0

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    mutating func connectionOpened() {
        open += 1
        if open == maximum {
            ChatterMetrics.connectionCapReached()
            logger.notice("connection cap reached: new connections wait until one closes", metadata: ["connections": "\(open)"])
        }
    }

    mutating func connectionClosed() {
        open -= 1
    }

    func isAcceptingNewConnections() -> Bool { open < maximum }
}

extension ConnectionLimits {
    /// The HTTP/1.1 server with these deadlines; `secure` when TLS wraps it (the handshake has its own).
    func http1(secure: Bool, logger: Logger) -> HTTPServerBuilder {
        let limits = self
        return .http1(configuration: .init(additionalChannelHandlers: [ConnectionDeadlines(limits: limits, secure: secure, logger: logger)]))
    }
}
