import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Crypto
import Foundation
import Hummingbird

/// The browser behind a web request: its own random identity (which the CSRF token of every form is
/// derived from, one per action, so forms work before sign-in and sign-in forms cannot be forged from another site), and
/// the session its cookie names, if any.
struct WebVisitor: Sendable {
    static let browserCookieName = "__Host-chatter-browser"
    static let deviceCookieName = "__Host-chatter-device"
    static let pendingCookieName = "__Host-chatter-pending"

    let browserID: String
    /// This response must set the browser cookie: the request had none.
    let isNewBrowser: Bool
    let session: AuthenticatedSession?

    var browserCookie: String { WebCookie.make(Self.browserCookieName, browserID, maxAge: 400 * 86_400) }

    static func of(_ request: Request, sessions: SessionService) async throws -> WebVisitor {
        let existing = request.cookie(browserCookieName)
        let valid = existing.flatMap { $0.utf8.count == 43 ? $0 : nil }
        var session: AuthenticatedSession?
        if let token = request.cookie(SessionAuthenticator.cookieName), token.utf8.count <= 128,
            case .valid(let found) = try await sessions.unboundSession(token)
        {
            session = found
        }
        return WebVisitor(browserID: valid ?? SessionToken.generate().secret, isNewBrowser: valid == nil, session: session)
    }

    /// Whether `sent` is this browser's CSRF token for `action`, compared in constant time.
    func accepts(csrf sent: String?, for action: FormAction) -> Bool {
        guard let sent, !isNewBrowser else { return false }
        return constantTimeEqual(Array(sent.utf8), Array(action.csrfToken(forBrowser: browserID).utf8))
    }
}

/// Applied to the pages' route group: every page and form knows its browser (`context.requireVisitor()`),
/// found once per request.
struct VisitorMiddleware: RouterMiddleware {
    typealias Context = ChatterRequestContext
    let sessions: SessionService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.visitor = try await WebVisitor.of(request, sessions: sessions)
        return try await next(request, context)
    }
}

/// Applied to the pages that need a signed-in browser (the account's and its forms), inside the pages' group:
/// a browser without a session is sent to sign in and come back to the account before any handler runs (a
/// script's JSON request gets 401), so no handler checks it by hand.
struct SignedInPagesMiddleware: RouterMiddleware {
    typealias Context = ChatterRequestContext

    /// A path as a query value: unreserved characters and `/` as they are, the rest escaped.
    static let pathInQuery = WebSessions.queryValue.union(CharacterSet(charactersIn: "/"))

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard try context.requireVisitor().session == nil else { return try await next(request, context) }
        if request.headers[.accept]?.contains("application/json") == true {
            throw APIError(.unauthorized, .authenticationRequired, "Sign in first.")
        }
        // A page comes back to itself after the sign-in; a form, to the account.
        let back = request.method == .get ? WebSessions.sameSitePath(request.uri.string) ?? "/account" : "/account"
        return WebSessions.redirect(to: "/auth?next=" + (back.addingPercentEncoding(withAllowedCharacters: Self.pathInQuery) ?? "/account"))
    }
}

extension ChatterRequestContext {
    /// The browser `VisitorMiddleware` found: pages' routes only.
    func requireVisitor() throws -> WebVisitor {
        guard let visitor else { throw APIError(.internalServerError, .internalError, "This page was served without its browser.") }
        return visitor
    }

    /// The signed-in browser and its session, on the routes `SignedInPagesMiddleware` guards.
    func requireSignedIn() throws -> (visitor: WebVisitor, session: AuthenticatedSession) {
        let visitor = try requireVisitor()
        guard let session = visitor.session else { throw APIError(.internalServerError, .internalError, "This page was served without its session.") }
        return (visitor, session)
    }
}

/// The cookies the web app sets: always `__Host-` (so `Secure`, `Path=/`, no `Domain`), `HttpOnly` and `SameSite=Lax`.
enum WebCookie {
    static func make(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAge); Secure; HttpOnly; SameSite=Lax"
    }

    static func expired(_ name: String) -> String { make(name, "", maxAge: 0) }
}
