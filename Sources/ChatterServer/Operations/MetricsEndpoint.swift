import Foundation
import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics` in Prometheus' text format. Who may read it is the operator's choice: by default only
/// loopback peers (a Prometheus on the same machine); with `--metrics-token`, anyone presenting it as a
/// bearer token; with `--metrics-bind`, it moves to a listener of its own (a private interface) and the
/// public one has no `/metrics`.
struct MetricsEndpoint: Sendable {
    enum Access: Sendable, Equatable {
        /// The socket peer must be a loopback address (never a forwarding header's word).
        case loopback
        /// `Authorization: Bearer TOKEN`, compared in constant time.
        case token(String)
        /// Whoever reaches the listener: a listener on an address the operator keeps private.
        case anyone
    }

    let registry: PrometheusCollectorRegistry
    let access: Access

    func allows(peerIP: String?, authorization: String?) -> Bool {
        switch access {
        case .anyone:
            return true
        case .loopback:
            guard let peerIP else { return false }
            return peerIP == "::1" || peerIP.hasPrefix("127.") || peerIP.hasPrefix("::ffff:127.")
        case .token(let token):
            guard let authorization, authorization.hasPrefix("Bearer ") else { return false }
            return constantTimeEqual(Array(authorization.utf8.dropFirst(7)), Array(token.utf8))
        }
    }

    func register(on router: Router<ChatterRequestContext>) {
        router.get("metrics") { request, context in
            // Refused as if absent: a scanner learns nothing about what it could read with a token.
            guard allows(peerIP: context.peerIP, authorization: request.headers[.authorization]) else {
                throw APIError(.notFound, "not_found", "No such route.")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
