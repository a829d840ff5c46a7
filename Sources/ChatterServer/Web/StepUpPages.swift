import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// `/account/verify`, "Confirm it is you": where an action that takes a recent proof sends the browser. It
/// offers every proof the account has — the authenticator app's code (or a recovery code), one of its
/// passkeys, or signing in again — and once one passes it finishes the action that sent the browser there
/// (`Resume`) or goes back to the page it came from. A state with no proof on offer never arises: signing
/// in again is always there.
struct StepUpPages {
    let secondFactors: SecondFactorService
    let passkeys: PasskeyService
    let account: AccountPages
    let pages: WebPages
    let web: WebSessions

    static let path = "/account/verify"

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.get(RouterPath(Self.path)) { request, context in try await page(request, context) }
        router.post(RouterPath(FormAction.stepUp.route)) { request, context in try await verify(request, context) }
        router.post(RouterPath(FormAction.stepUpPasskeyOptions.route)) { request, context in try await passkeyOptions(request, context) }
        router.post(RouterPath(FormAction.stepUpPasskey.route)) { request, context in try await verifyPasskey(request, context) }
    }

    /// What a passed step-up finishes: the action that asked for it, when that was a form and not a page.
    enum Resume: Equatable {
        case signOutEverywhere
        case revokeSession(UUID)
        case addAuthenticator

        init?(_ text: String?) {
            guard let text, text.utf8.count <= 64 else { return nil }
            if text == "signout-everywhere" {
                self = .signOutEverywhere
            } else if text == "add-authenticator" {
                self = .addAuthenticator
            } else if text.hasPrefix("revoke:"), let id = UUID(uuidString: String(text.dropFirst("revoke:".count))) {
                self = .revokeSession(id)
            } else {
                return nil
            }
        }

        var text: String {
            switch self {
            case .signOutEverywhere: "signout-everywhere"
            case .revokeSession(let id): "revoke:\(id.uuidString)"
            case .addAuthenticator: "add-authenticator"
            }
        }

        /// What the page says will happen once it is confirmed: a link can carry `resume`, so the person
        /// confirming sees what they confirm.
        var sentence: String {
            switch self {
            case .signOutEverywhere: "Once confirmed, every browser and app signed in to your account is signed out, this one too."
            case .revokeSession: "Once confirmed, the session you chose to end is signed out."
            case .addAuthenticator: "Once confirmed, you go on to add your authenticator app."
            }
        }
    }

    /// Where an action that answered `step_up_required` or `sign_in_again` sends the browser: to come back
    /// to `next`, or to finish `resume` at once.
    static func ask(returningTo next: String, resume: Resume? = nil) -> Response {
        var query = "?next=" + (next.addingPercentEncoding(withAllowedCharacters: WebSessions.queryValue) ?? "%2Faccount")
        if let resume { query += "&resume=" + (resume.text.addingPercentEncoding(withAllowedCharacters: WebSessions.queryValue) ?? "") }
        return WebSessions.redirect(to: path + query)
    }

    struct Page: PageContent {
        let frame: PageFrame
        let next: String
        let resume: String
        /// What confirming will do, when it finishes an action.
        let then: String?
        /// The account has an authenticator app: its code (or a recovery code) is offered.
        let code: Bool
        /// The account has passkeys: one is offered (where the browser has WebAuthn).
        let passkey: Bool
    }

    /// The page, saying why the last proof was refused (`WebFlash`), if one was.
    func page(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let next = request.uri.queryParameters.get("next").flatMap(WebSessions.sameSitePath) ?? "/account"
        let resume = Resume(request.uri.queryParameters.get("resume").map { String($0) })
        let page = Page(
            frame: pages.frame("Confirm it is you", visitor, error: WebFlash.message(request)), next: next, resume: resume?.text ?? "",
            then: resume?.sentence, code: try await secondFactors.isEnabled(for: session.user.id),
            passkey: try await passkeys.list(session.user).contains { !$0.flagged })
        return WebFlash.cleared(pages.render("verify", page, visitor: visitor), for: request)
    }

    struct CodeForm: WebForm {
        let csrf: String
        let code: String
        let next: String?
        let resume: String?
    }

    func verify(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(CodeForm.self, for: .stepUp, request, context, visitor: visitor)
        return try await confirm(session, next: form.next, resume: form.resume, request, context) {
            try await secondFactors.stepUp(session, code: form.code, client: context.client(request))
        }
    }

    func passkeyOptions(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        _ = try await web.form(CSRFOnly.self, for: .stepUpPasskeyOptions, request, context, visitor: visitor)
        return JSONResponse.make(try await passkeys.stepUpOptions(for: session, client: context.client(request)))
    }

    struct PasskeyForm: WebForm {
        let csrf: String
        let credential: String
        let next: String?
        let resume: String?
    }

    func verifyPasskey(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(PasskeyForm.self, for: .stepUpPasskey, request, context, visitor: visitor)
        return try await confirm(session, next: form.next, resume: form.resume, request, context) {
            let credential = try PasskeyPages.decodeCredential(AuthenticationResponseJSON.self, from: form.credential)
            try await passkeys.stepUp(PasskeySignInRequest(credential: credential), session: session, client: context.client(request))
        }
    }

    /// One proof (`prove`), then what it passed for; a proof refused shows the page again with its message.
    private func confirm(
        _ session: AuthenticatedSession, next: String?, resume: String?, _ request: Request, _ context: ChatterRequestContext,
        prove: () async throws -> Void
    ) async throws -> Response {
        do {
            try await prove()
        } catch let error as any APIErrorConvertible {
            // Back to this page, for another try, saying why (post/redirect/get).
            let back = Self.ask(returningTo: next.flatMap(WebSessions.sameSitePath) ?? "/account", resume: Resume(resume))
            return WebFlash.redirect(to: back.headers[.location] ?? Self.path, error: error.apiError)
        }
        return try await passed(session, next: next, resume: resume, request, context)
    }

    /// The step-up passed: finish what sent the browser here, or go back to it. An action that fails now (the
    /// session it would end is gone) is shown on the account page.
    private func passed(_ session: AuthenticatedSession, next: String?, resume: String?, _ request: Request, _ context: ChatterRequestContext)
        async throws -> Response
    {
        guard let resume = Resume(resume) else { return WebSessions.redirect(to: next.flatMap(WebSessions.sameSitePath) ?? "/account") }
        do {
            return try await account.finish(resume, session: session, client: context.client(request))
        } catch let error as any APIErrorConvertible {
            return AccountPages.refused(error.apiError)
        }
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension StepUpPages.Page: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "next": next
        case "resume": resume
        case "then": then
        case "code": code
        case "passkey": passkey
        default: nil
        }
    }
}
