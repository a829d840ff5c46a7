import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics` in Prometheus' text format. Who may read it is the operator's choice: by default only
/// a Prometheus on the same machine; with `--metrics-token`, anyone presenting it as a bearer token; with
/// `--metrics-bind`, it moves to a listener of its own (a private interface) and the public one has no
/// `/metrics`.
///
/// "The same machine" is private by construction: a loopback peer is not enough, since a proxy on the
/// same host (nginx or Caddy in front of `--http`) is a loopback peer for everyone on the internet. So the
/// loopback rule refuses any request with a forwarding header and any peer that is a trusted proxy, and
/// with `--http` (always behind a proxy) it does not apply at all: only a token or a listener of its own.
struct MetricsEndpoint: Sendable {
    enum Access: Sendable, Equatable {
        /// The socket peer must be a loopback address that is not a trusted proxy, and the request must
        /// carry no forwarding header (whoever wrote one is passing someone else's request along).
        case loopback(proxies: TrustedProxies)
        /// `Authorization: Bearer TOKEN`, compared in constant time.
        case token(String)
        /// Whoever reaches the listener: a listener on an address the operator keeps private.
        case anyone
    }

    let registry: PrometheusCollectorRegistry
    let access: Access

    /// Headers a proxy adds when it passes a request on: any of them means the request is not the peer's own.
    static let forwardingHeaders: [HTTPField.Name] = [
        ClientAddressMiddleware.forwarded, ClientAddressMiddleware.xForwardedFor, HTTPField.Name("X-Real-IP")!, HTTPField.Name("X-Forwarded-Host")!,
        HTTPField.Name("X-Forwarded-Proto")!, HTTPField.Name("Via")!, HTTPField.Name("X-Forwarded-Port")!, HTTPField.Name("True-Client-IP")!,
    ]

    func allows(peerIP: String?, headers: HTTPFields) -> Bool {
        switch access {
        case .anyone:
            return true
        case .loopback(let proxies):
            guard let peerIP, let peer = TrustedProxies.parse(peerIP), !proxies.trusts(peer) else { return false }
            guard !Self.forwardingHeaders.contains(where: { headers[$0] != nil }) else { return false }
            return (peer.count == 4 && peer[0] == 127) || peer == Array(repeating: 0, count: 15) + [1]
        case .token(let token):
            guard let authorization = headers[.authorization], authorization.hasPrefix("Bearer ") else { return false }
            return constantTimeEqual(Array(authorization.utf8.dropFirst(7)), Array(token.utf8))
        }
    }

    /// Who may read `/metrics` on the main listener: token bearers with a token; else, unless the listener
    /// is plain HTTP behind a proxy, requests from this machine; else no one (the route does not exist).
    static func mainListenerAccess(token: String?, plainHTTP: Bool, proxies: TrustedProxies) -> Access? {
        if let token { return .token(token) }
        return plainHTTP ? nil : .loopback(proxies: proxies)
    }

    func register(on router: Router<ChatterRequestContext>) {
        router.get("metrics") { request, context in
            // Refused as if absent: a scanner learns nothing about what it could read with a token.
            guard allows(peerIP: context.peerIP, headers: request.headers) else {
                throw APIError(.notFound, .notFound, "No such route.")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
