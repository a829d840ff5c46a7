import ChatterCore
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SMTP session on a NIO channel: strictly one command, then its reply, each under the command
/// timeout. Every failure comes out as a `MailError` that names the server and what went wrong.
package struct SMTPConnection {
    package let channel: any Channel
    /// Held rather than looked up in the pipeline, so its failure outlives the channel's close.
    package let handler: NIOLoopBound<SMTPClientHandler>
    package let peer: String
    package let commandTimeout: Duration

    package static func connect(_ configuration: SMTPConfiguration, tls: NIOSSLContext, group: any EventLoopGroup) async throws -> SMTPConnection {
        let peer = "\(configuration.host):\(configuration.port)"
        let host = configuration.host
        let implicitTLS = configuration.security == .implicitTLS
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(TimeAmount(configuration.timeouts.connect))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS { try channel.pipeline.syncOperations.addHandler(makeTLSHandler(tls, host: host)) }
                    try channel.pipeline.syncOperations.addHandler(SMTPClientHandler(peer: peer))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
            let handler = try await channel.eventLoop.submit {
                NIOLoopBound(try channel.pipeline.syncOperations.handler(type: SMTPClientHandler.self), eventLoop: channel.eventLoop)
            }.get()
            return SMTPConnection(channel: channel, handler: handler, peer: peer, commandTimeout: configuration.timeouts.command)
        } catch ChannelError.connectTimeout(_) {
            throw MailError("timed out after \(format(configuration.timeouts.connect)) connecting to SMTP server \(peer)")
        } catch {
            throw MailError("could not connect to SMTP server \(peer): \(reason(error))")
        }
    }

    /// Sends `command` (nil only waits: for the greeting) and returns the reply. `name` is how errors refer
    /// to the command, so that AUTH arguments (the credentials) never appear in a message or log.
    package func exchange(_ command: ByteBuffer?, name: String) async throws -> SMTPReply {
        let (channel, handler, peer, timeout) = (self.channel, self.handler, self.peer, commandTimeout)
        let promise = channel.eventLoop.makePromise(of: SMTPReply.self)
        channel.eventLoop.execute {
            handler.value.expectReply(promise)
            if let command {
                channel.writeAndFlush(command).whenFailure { promise.fail(SMTPClientHandler.describe($0, peer: peer)) }
            }
            let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
                Self.terminate(channel, handler, MailError("timed out after \(Self.format(timeout)) waiting for SMTP server \(peer) to answer \(name)"))
            }
            promise.futureResult.whenComplete { _ in timer.cancel() }
        }
        return try await promise.futureResult.get()
    }

    /// Puts TLS under the session after the server's "220" to STARTTLS.
    package func startTLS(_ tls: NIOSSLContext, host: String) async throws {
        let (channel, handler, peer) = (self.channel, self.handler, self.peer)
        try await channel.eventLoop.submit {
            // Bytes already received after that "220" came in plaintext: a man in the middle could have
            // injected them to be read as if they came over TLS (CVE-2011-0411), so refuse them.
            guard !handler.value.hasUnreadInput else { throw MailError("SMTP server \(peer) sent unexpected data after agreeing to STARTTLS") }
            try channel.pipeline.syncOperations.addHandler(Self.makeTLSHandler(tls, host: host), position: .first)
        }.get()
    }

    /// Aborts the session with `error` at `deadline`, whatever it is waiting for by then.
    package func abort(at deadline: NIODeadline, with error: MailError) -> Scheduled<Void> {
        let (channel, handler) = (self.channel, self.handler)
        return channel.eventLoop.scheduleTask(deadline: deadline) { Self.terminate(channel, handler, error) }
    }

    /// Aborts the session now, from any thread: for task cancellation.
    package func abort(with error: MailError) {
        let (channel, handler) = (self.channel, self.handler)
        channel.eventLoop.execute { Self.terminate(channel, handler, error) }
    }

    package func close() async {
        try? await channel.close()
    }

    private static func terminate(_ channel: any Channel, _ handler: NIOLoopBound<SMTPClientHandler>, _ error: MailError) {
        handler.value.fail(error)
        channel.close(promise: nil)
    }

    private static func makeTLSHandler(_ context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        // SNI cannot carry an IP address; without a name NIOSSL checks the certificate against the peer's IP.
        let isIPAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isIPAddress ? nil : host)
    }

    /// "Connection refused" rather than NIO's nested description of every address it tried.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve host (\(dns))" }
            if let last = error.connectionErrors.last?.error { return reason(last) }
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }

    package static func format(_ duration: Duration) -> String {
        let milliseconds = Int((duration / .milliseconds(1)).rounded())
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}

extension SMTPConnection {
    /// Sends `command` and throws unless the reply has one of `codes`, as "SMTP server refused RCPT TO: 550 …".
    @discardableResult
    package func expect(_ command: String?, name: String? = nil, _ codes: Int...) async throws -> SMTPReply {
        try await expect(command.map { ByteBuffer(string: $0 + "\r\n") }, name: name ?? command ?? "the connection", codes)
    }

    @discardableResult
    package func expect(_ bytes: ByteBuffer?, name: String, _ codes: [Int]) async throws -> SMTPReply {
        let reply = try await exchange(bytes, name: name)
        guard codes.contains(reply.code) else {
            throw MailError("SMTP server refused \(name): \(reply.summary)", recipientRefused: name == "RCPT TO" && (500..<600).contains(reply.code))
        }
        return reply
    }
}
