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
    /// One timer per connection, rescheduled only when it fires early: arming a deadline on every request
    /// is then a clock read, not a timer (the cheapest answers are served at tens of thousands a second).
    private var timer: Scheduled<Void>?
    private var timerFiresAt: NIODeadline?
    private var deadline: NIODeadline?
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
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    /// The connection is gone: its timer with it.
    private func stop() {
        deadline = nil
        timer?.cancel()
        timer = nil
        timerFiresAt = nil
    }

    private func seconds(_ wait: Wait) -> Double {
        switch wait {
        case .handshake: limits.tlsHandshakeTimeout
        case .head: limits.headTimeout
        case .body: limits.bodyTimeout
        case .idle: limits.idleTimeout
        }
    }

    private func arm(_ wait: Wait, _ context: ChannelHandlerContext) {
        waiting = wait
        let due = NIODeadline.now() + .nanoseconds(Int64(seconds(wait) * 1e9))
        deadline = due
        // A timer already due no later than this deadline will find it and wait on; only an earlier one needs a timer.
        if let firesAt = timerFiresAt, firesAt <= due { return }
        schedule(at: due, context)
    }

    private func schedule(at due: NIODeadline, _ context: ChannelHandlerContext) {
        timer?.cancel()
        timerFiresAt = due
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = loopBound.value
            handler.fired(context)
        }
    }

    private func disarm() {
        deadline = nil
    }

    /// The timer fired: the connection missed its deadline, or the deadline moved on (wait for it), or
    /// there is none (the timer ends).
    private func fired(_ context: ChannelHandlerContext) {
        timer = nil
        timerFiresAt = nil
        guard let deadline, let wait = waiting else { return }
        if NIODeadline.now() < deadline {
            schedule(at: deadline, context)
            return
        }
        expired(wait, seconds(wait), context)
    }

    private func expired(_ wait: Wait, _ seconds: Double, _ context: ChannelHandlerContext) {
        deadline = nil
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
