import ChatterCore
import ChatterDomain
import ChatterStorage
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOTLS

/// Closes a connection that misses a deadline of `ConnectionLimits`: the TLS handshake, the first request's
/// head, a request's body, an answer the client does not take, or the next request on a kept-alive
/// connection. It sits after the HTTP decoder, so it sees requests as their parts arrive; a client sending
/// a header a byte at a time never completes a head, and the deadline that was armed when the connection
/// started waiting closes it.
///
/// At every moment exactly one deadline applies, except while chatterd itself works on a request (read
/// whole, its answer not begun): its own work has none. Requests read and answers written are counted, so
/// an answer sent before its request's body arrived (a 401 or 404 needs no body), or pipelined requests,
/// leave no moment without a deadline.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the connection is waiting for, and so which deadline applies.
    enum Wait: String {
        case handshake = "tls_handshake"
        case head, body, answer, idle
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
    /// A request's head is in and its end is not.
    private var receiving = false
    /// Requests read whole, and answers written whole.
    private var requestsRead = 0, answersWritten = 0
    /// When the connection began: a TLS connection's first head is due `headTimeout` after it, handshake included.
    private var startedAt = NIODeadline.now()

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
        startedAt = .now()
        arm(secure ? .handshake : .head, context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if waiting == .handshake, case .handshakeCompleted = event as? TLSUserEvent {
            arm(.head, context, due: startedAt + Self.duration(limits.headTimeout))
        }
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
            receiving = false
            requestsRead += 1
            settle(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            // Taking the answer is the client's part: one that stops reading is closed like one that stops sending.
            if !receiving { arm(.answer, context) }
        case .body:
            break
        case .end:
            answersWritten += 1
            settle(context)
        }
        context.write(data, promise: promise)
    }

    /// Between parts: still receiving a body (its deadline goes on), every request answered (idle until
    /// the next), or a request read and not yet answered (chatterd's own work: no deadline).
    private func settle(_ context: ChannelHandlerContext) {
        if receiving {
            if waiting != .body { arm(.body, context) }
        } else if answersWritten >= requestsRead {
            arm(.idle, context)
        } else {
            disarm()
        }
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
        case .handshake: min(limits.tlsHandshakeTimeout, limits.headTimeout)
        case .head: limits.headTimeout
        case .body, .answer: limits.bodyTimeout
        case .idle: limits.idleTimeout
        }
    }

    static func duration(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }

    private func arm(_ wait: Wait, _ context: ChannelHandlerContext, due given: NIODeadline? = nil) {
        waiting = wait
        let due = given ?? NIODeadline.now() + Self.duration(seconds(wait))
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

    /// The cap was reached and not yet left well below: logged once per stay at the top, not per connection.
    private var atCap = false

    mutating func connectionOpened() {
        open += 1
        if open == maximum, !atCap {
            atCap = true
            ChatterMetrics.connectionCapReached()
            logger.notice("connection cap reached: new connections wait until one closes", metadata: ["connections": "\(open)"])
        }
    }

    mutating func connectionClosed() {
        open -= 1
        if atCap, open <= maximum * 3 / 4 {
            atCap = false
            logger.notice("connections well below the cap again", metadata: ["connections": "\(open)"])
        }
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
