import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The per-request context. Its upload limit applies to every route: bodies past it get a 413.
public struct ChatterRequestContext: AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer, taken when the request arrives (a connection closed mid-request forgets it,
    /// and a limit must still count the request) but written out as text only for the requests that ask
    /// (rate limits, the audit log, `/metrics`): most never do, and formatting it cost each one.
    private let peer: SocketAddress?
    /// What `ClientAddressMiddleware` found in a trusted proxy's forwarding header (`.some(nil)`: no address).
    private var forwardedClientIP: String??

    /// The socket peer's address: the proxy's, behind one.
    public var peerIP: String? { peer?.ipAddress }
    /// The client's address, for rate limits and the audit log: the peer's, unless `ClientAddressMiddleware`
    /// found it in a trusted proxy's forwarding header.
    public var clientIP: String? {
        get { forwardedClientIP ?? peerIP }
        set { forwardedClientIP = .some(newValue) }
    }
    /// How many leading bits of an IPv6 `clientIP` its limits count by (`ClientNetwork`); the keys are made
    /// only when a handler asks for `client(_:)`, so requests that never count anything parse no address.
    public var ipv6Prefix = ClientNetwork.defaultPrefix
    /// The bearer or cookie session, on the native API's signed-in routes (`SessionAuthenticator`).
    public var identity: AuthenticatedSession?
    /// The request's DPoP proof, checked and used up (`DPoPMiddleware`); nil without one.
    public var proof: DPoPProof?
    /// The attested install an App Attest assertion vouched for (`AppAttestMiddleware`); nil without one.
    public var attested: AttestedInstall?
    /// The browser, on the pages' routes (`VisitorMiddleware`).
    var visitor: WebVisitor?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    public var maxUploadSize: Int { Limits.bodyBytes }
}

/// Reads the client's address from forwarding headers, when the peer is a trusted proxy, and the network
/// its limits count by.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ChatterRequestContext
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    let proxies: TrustedProxies
    var ipv6Prefix = ClientNetwork.defaultPrefix

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if !proxies.isEmpty {
            context.clientIP = proxies.clientAddress(
                peer: context.peerIP, forwardedFor: request.headers[values: Self.xForwardedFor], forwarded: request.headers[values: Self.forwarded])
        }
        context.ipv6Prefix = ipv6Prefix
        return try await next(request, context)
    }
}

extension ChatterRequestContext {
    /// The caller as the audit log and session list record it: the User-Agent cleaned (`DisplayText`), since
    /// the session lists show it to the account's owner and to operators, and at most 256 Unicode scalars.
    func client(_ request: Request) -> ClientInfo {
        let ip = clientIP
        return ClientInfo(
            ip: ip, userAgent: request.headers[.userAgent].map { Self.label(DisplayText.clean(String($0.unicodeScalars.prefix(512)))) },
            network: ip.map { ClientNetwork.key($0, ipv6Prefix: ipv6Prefix) }, wideNetwork: ip.flatMap(ClientNetwork.wideKey),
            boundKey: proof?.thumbprint, attested: attested)
    }

    static func label(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.prefix(256))
        return String(scalars)
    }
}
