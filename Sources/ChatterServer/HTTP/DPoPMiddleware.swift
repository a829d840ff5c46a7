import ChatterCore
import ChatterDomain
import ChatterWire
import HTTPTypes
import Hummingbird

/// Checks the DPoP proof (RFC 9449) a request carries, once, before any route: a proof that fails a check,
/// or was used before, is refused here; one that passes sets `context.proof`, which a sign-in binds its
/// session to (`ChatterRequestContext.client`), a refresh rotates with, and `SessionAuthenticator` holds a
/// bound session's token to. A request without a proof costs one header lookup. Only the native API
/// (`/v1/`) reads proofs: elsewhere (the course API, the pages) a proof binds nothing, so it is not worth a
/// signature check or a row.
struct DPoPMiddleware: RouterMiddleware {
    typealias Context = ChatterRequestContext
    let gate: DPoPGate

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        guard let header = request.headers[.dpop] else {
            // Required: the token-issuing routes refuse a request without a proof before it spends a code or a
            // challenge (`SessionService` refuses the session itself too, whatever the route).
            if gate.required, request.method == .post, request.uri.path.hasPrefix("/v1/auth/"), request.headers[.authorization] == nil,
                request.cookie(SessionAuthenticator.cookieName) == nil
            {
                throw DPoPError.required.apiError(presentsToken: false)
            }
            return try await next(request, context)
        }
        let token = SessionAuthenticator.dpopToken(in: request)
        var context = context
        do {
            // RFC 9449 §4.3 check 1: exactly one proof.
            guard request.headers[values: .dpop].count == 1 else { throw DPoPError.rejected(.malformed, "the request carries more than one DPoP header") }
            let target = DPoPTarget(method: request.method.rawValue, authority: request.head.authority ?? "", path: request.uri.path)
            context.proof = try await gate.check(header, for: target, accessToken: token)
        } catch let error as DPoPError {
            throw error.apiError(presentsToken: token != nil)
        }
        var response = try await next(request, context)
        if let nonce = gate.nonce { response.headers[.dpopNonce] = nonce }
        return response
    }
}
