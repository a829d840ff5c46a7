import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth

/// Applied to the route group of the native API's signed-in routes: finds the session the request carries
/// (an access token from native clients, as `Bearer` or, bound to a key, as `DPoP`; or the web view's
/// cookie) and sets it on the context, or answers 401 with the reason. Cookie-authenticated requests that
/// change state must echo the CSRF token, which a cross-site page cannot read. A session bound to a key is
/// accepted only with a proof by that key over this request and token (`DPoPMiddleware` checked it).
struct SessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = ChatterRequestContext
    static let cookieName = "__Host-chatter-session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    let sessions: SessionService

    /// How a request presented its token.
    enum Presented {
        case bearer, dpop, cookie
    }

    func authenticate(request: Request, context: Context) async throws -> AuthenticatedSession? {
        guard let (token, presented) = Self.credentials(in: request) else { throw SessionError.authenticationRequired }
        if presented == .cookie, ![.get, .head].contains(request.method) {
            guard let sent = request.headers[Self.csrfHeader], constantTimeEqual(Array(sent.utf8), Array(Self.csrfToken(forCookie: token).utf8)) else {
                throw APIError(.forbidden, .csrfFailed, "This form is missing its CSRF token.")
            }
        }
        // A DPoP token always comes with its proof (made over it: the middleware checked `ath`).
        if presented == .dpop, context.proof == nil {
            throw DPoPError.rejected(.malformed, "a DPoP token came without a DPoP proof").apiError(presentsToken: true)
        }
        let session = try await sessions.session(accessToken: token)
        if let bound = session.boundKey {
            guard presented == .dpop, context.proof?.thumbprint == bound else { throw DPoPError.boundToAnotherKey.apiError(presentsToken: true) }
        } else if presented == .bearer, sessions.requireBoundKey {
            throw DPoPError.required.apiError(presentsToken: true)
        }
        return session
    }

    static func credentials(in request: Request) -> (String, Presented)? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
            switch parts[0].lowercased() {
            case "bearer": return (token, .bearer)
            case "dpop": return (token, .dpop)
            default: return nil
            }
        }
        if let cookie = request.cookie(cookieName) { return (cookie, .cookie) }
        return nil
    }

    /// The token of `Authorization: DPoP <token>`, which the request's proof must carry the hash of.
    static func dpopToken(in request: Request) -> String? {
        guard let (token, presented) = credentials(in: request), presented == .dpop else { return nil }
        return token
    }

    /// Derived from the cookie itself, so nothing more is stored.
    static func csrfToken(forCookie value: String) -> String {
        Hex.encode(SHA256.hash(data: Array("chatterd csrf\n\(value)".utf8)))
    }
}

extension ChatterRequestContext {
    /// The session `SessionAuthenticator` set: routes in its group only.
    func requireSession() throws -> AuthenticatedSession {
        guard let identity else { throw SessionError.authenticationRequired }
        return identity
    }
}
