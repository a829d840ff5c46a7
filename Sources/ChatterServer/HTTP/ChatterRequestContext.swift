import ChatterWire
import Hummingbird

/// The per-request context. Its upload limit applies to every route: bodies past it get a 413.
public struct ChatterRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    public var maxUploadSize: Int { Limits.bodyBytes }
}
