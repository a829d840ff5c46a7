import ChatterWire
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Finds the session a request carries: a bearer access token (native clients), or the web-view cookie.
/// Cookie-authenticated requests that change state must echo the CSRF token, which a cross-site page
/// cannot read.
struct Authenticator: Sendable {
    static let cookieName = "__Host-chatter-session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    let sessions: SessionService

    func require(_ request: Request) async throws -> (session: AuthenticatedSession, token: String) {
        guard let (token, viaCookie) = Self.credentials(in: request) else {
            throw Self.challenge("authentication_required", "Sign in first: send Authorization: Bearer <access token>.")
        }
        if viaCookie, ![.get, .head].contains(request.method) {
            guard let sent = request.headers[Self.csrfHeader], constantTimeEqual(Array(sent.utf8), Array(Self.csrfToken(forCookie: token).utf8)) else {
                throw APIError(.forbidden, "csrf_failed", "This form is missing its CSRF token.")
            }
        }
        switch try await sessions.authenticate(token) {
        case .valid(let session): return (session, token)
        case .expired: throw Self.challenge(AuthErrorCode.accessTokenExpired, "The access token has expired; refresh it.")
        case .unknown: throw Self.challenge(AuthErrorCode.invalidAccessToken, "The access token is not valid; sign in again.")
        }
    }

    static func challenge(_ code: String, _ message: String) -> APIError {
        APIError(.unauthorized, code, message).with(.wwwAuthenticate, "Bearer error=\"invalid_token\", error_description=\"\(code)\"")
    }

    static func credentials(in request: Request) -> (String, viaCookie: Bool)? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return (String(parts[1]).trimmingCharacters(in: .whitespaces), false) }
            return nil
        }
        if let cookie = request.cookies[cookieName]?.value, !cookie.isEmpty { return (cookie, true) }
        return nil
    }

    /// Derived from the cookie itself, so nothing more is stored.
    static func csrfToken(forCookie value: String) -> String {
        SHA256.hash(data: Array("chatterd csrf\n\(value)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
