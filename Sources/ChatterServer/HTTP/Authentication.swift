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
/// (a bearer access token from native clients, or the web view's cookie) and sets it on the context, or
/// answers 401 with the reason. Cookie-authenticated requests that change state must echo the CSRF token,
/// which a cross-site page cannot read.
struct SessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = ChatterRequestContext
    static let cookieName = "__Host-chatter-session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    let sessions: SessionService

    func authenticate(request: Request, context: Context) async throws -> AuthenticatedSession? {
        guard let (token, viaCookie) = Self.credentials(in: request) else { throw SessionError.authenticationRequired }
        if viaCookie, ![.get, .head].contains(request.method) {
            guard let sent = request.headers[Self.csrfHeader], constantTimeEqual(Array(sent.utf8), Array(Self.csrfToken(forCookie: token).utf8)) else {
                throw APIError(.forbidden, .csrfFailed, "This form is missing its CSRF token.")
            }
        }
        return try await sessions.session(accessToken: token)
    }

    static func credentials(in request: Request) -> (String, viaCookie: Bool)? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return (String(parts[1]).trimmingCharacters(in: .whitespaces), false) }
            return nil
        }
        if let cookie = request.cookie(cookieName) { return (cookie, true) }
        return nil
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
