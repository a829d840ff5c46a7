import ChatterWire
import Hummingbird
import NIOCore

/// The per-request context. Its upload limit applies to every route: bodies past it get a 413.
public struct ChatterRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address (the proxy's, behind one), for rate limits and the audit log.
    public let remoteIP: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteIP = source.channel.remoteAddress?.ipAddress
    }

    public var maxUploadSize: Int { Limits.bodyBytes }
}
