import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// `/auth/second-factor`: the second step of a web sign-in. The waiting sign-in's token rides in a cookie
/// of its own (never in a URL, where logs and the `Referer` would keep it) until a code completes it.
struct SecondFactorPages {
    let signIn: SignInService
    let pages: WebPages
    let web: WebSessions

    static let cookieName = "__Host-chatter-second-step"
    static let path = "/auth/second-factor"

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.get(RouterPath(Self.path)) { request, context in
            try page(request, visitor: try context.requireVisitor(), next: request.uri.queryParameters.get("next"))
        }
        router.post(RouterPath(FormAction.secondStep.route)) { request, context in try await complete(request, context) }
    }

    /// The answer to a first factor that passed on an account with a second: off to the code page.
    static func ask(_ challenge: SecondFactorChallengeToken, next: String?, visitor: WebVisitor) -> Response {
        let query = next.flatMap(WebSessions.sameSitePath).flatMap { $0.addingPercentEncoding(withAllowedCharacters: WebSessions.queryValue) }
        var response = WebSessions.redirect(to: path + (query.map { "?next=\($0)" } ?? ""))
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(cookieName, challenge.token, maxAge: challenge.expiresIn)))
        if visitor.isNewBrowser { response.headers.append(HTTPField(name: .setCookie, value: visitor.browserCookie)) }
        return response
    }

    struct CodePage: PageContent {
        let frame: PageFrame
        let next: String?
        /// Days a remembered browser skips the step; nil when the server remembers none.
        let rememberDays: Int?
    }

    /// The code step, saying why the last code was refused (`WebFlash`), if it was.
    func page(_ request: Request, visitor: WebVisitor, next: String?) throws -> Response {
        guard request.cookie(Self.cookieName) != nil else { return WebSessions.redirect(to: "/auth") }
        let page = CodePage(
            frame: pages.frame("Two-step sign-in", visitor, error: WebFlash.message(request)), next: next.flatMap(WebSessions.sameSitePath),
            rememberDays: signIn.rememberDevice > 0 ? Int(signIn.rememberDevice / 86_400) : nil)
        return WebFlash.cleared(pages.render("second-factor", page, visitor: visitor), for: request)
    }

    struct CodeForm: WebForm {
        let csrf: String
        let code: String
        let next: String?
        /// The checkbox: "on" when ticked.
        let remember: String?
    }

    func complete(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(CodeForm.self, for: .secondStep, request, context, visitor: visitor)
        guard let token = request.cookie(Self.cookieName) else { return WebSessions.redirect(to: "/auth") }
        let client = context.client(request)
        do {
            let flow = try await signIn.completeSecondStep(
                token: token, code: form.code, device: request.cookie(WebVisitor.deviceCookieName), rememberDevice: form.remember == "on",
                client: client)
            var response = try await web.signedIn(flow, client: client, next: form.next, replacing: visitor)
            response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(Self.cookieName)))
            return response
        } catch SecondFactorError.stepExpired {
            // Nothing left to type a code for: the sign-in starts again, and its page says why.
            var response = WebFlash.redirect(to: "/auth" + AuthPages.nextQuery(form.next), error: SecondFactorError.stepExpired.apiError)
            response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(Self.cookieName)))
            return response
        } catch let error as any APIErrorConvertible {
            return WebFlash.redirect(to: Self.path + AuthPages.nextQuery(form.next), error: error.apiError)
        }
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension SecondFactorPages.CodePage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "next": next
        case "rememberDays": rememberDays
        default: nil
        }
    }
}
