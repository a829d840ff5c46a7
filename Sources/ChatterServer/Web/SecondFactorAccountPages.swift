import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// The second factor on the account page: adding an authenticator app (`/account/two-step` shows its QR
/// code, drawn here, and its secret until the first code confirms it), new recovery codes and turning it
/// off (the step-up page is `StepUpPages`). `SecondFactorService` holds the rules; every form carries its
/// own CSRF token.
struct SecondFactorAccountPages {
    let secondFactors: SecondFactorService
    let pages: WebPages
    let web: WebSessions

    static let setupPath = "/account/two-step"
    static let codesPath = "/account/two-step/codes"
    /// Carries the codes, sealed (`SecretBox.sealShown`), from the form's answer to the page that shows them.
    static let codesCookieName = "__Host-chatter-codes"

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(FormAction.secondFactorStart.route)) { request, context in try await start(request, context) }
        router.get(RouterPath(Self.setupPath)) { request, context in try await setup(request, context) }
        router.post(RouterPath(FormAction.secondFactorConfirm.route)) { request, context in try await confirm(request, context) }
        router.get(RouterPath(Self.codesPath)) { request, context in try await shown(request, context) }
        router.post(RouterPath(FormAction.recoveryCodes.route)) { request, context in try await regenerate(request, context) }
        router.post(RouterPath(FormAction.secondFactorDisable.route)) { request, context in try await disable(request, context) }
    }

    struct CodeForm: WebForm {
        let csrf: String
        let code: String
        let next: String?
    }

    // MARK: Adding an authenticator app

    func start(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        _ = try await web.form(CSRFOnly.self, for: .secondFactorStart, request, context, visitor: visitor)
        do {
            _ = try await secondFactors.beginEnrolment(session, account: try await secondFactors.accountName(session.user))
        } catch SecondFactorError.signInAgain {
            // "Confirm it is you": a passkey goes on to the setup at once; signing in again comes back to the account.
            return StepUpPages.ask(returningTo: "/account", resume: .addAuthenticator)
        }
        return WebSessions.redirect(to: Self.setupPath)
    }

    struct SetupPage: PageContent {
        let frame: PageFrame
        /// The QR code as a `data:` URL of an SVG image chatterd draws from the key URI: no third-party script or
        /// request, nothing rendered unescaped, and an image cannot run script.
        let qr: String
        let secret: String
        let uri: String
    }

    func setup(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        guard let enrolment = try await secondFactors.pendingEnrolment(session, account: try await secondFactors.accountName(session.user)) else {
            return WebSessions.redirect(to: "/account")
        }
        // fail-closed: a QR code that cannot be drawn is left out; the secret is shown as text and nothing is granted
        let qr = (try? QRCode(bytes: Array(enrolment.uri.utf8)).svg()).map { "data:image/svg+xml;base64," + Data($0.utf8).base64EncodedString() } ?? ""
        let page = SetupPage(
            frame: pages.frame("Add an authenticator app", visitor, error: WebFlash.message(request)), qr: qr,
            secret: Self.grouped(enrolment.secret), uri: enrolment.uri)
        return WebFlash.cleared(pages.render("two-step-setup", page, visitor: visitor), for: request)
    }

    /// The base32 secret in groups of four, as people type it (apps ignore the spaces).
    static func grouped(_ secret: String) -> String {
        stride(from: 0, to: secret.count, by: 4).map { String(secret.dropFirst($0).prefix(4)) }.joined(separator: " ")
    }

    struct CodesPage: PageContent {
        let frame: PageFrame
        let codes: [String]
        /// The codes as a text file, for the download link (a `data:` URL: nothing is stored to serve it).
        let download: String
    }

    func confirm(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(CodeForm.self, for: .secondFactorConfirm, request, context, visitor: visitor)
        do {
            let codes = try await secondFactors.confirmEnrolment(session, code: form.code, client: context.client(request))
            return try showCodes(codes, session: session, notice: .twoStepOn)
        } catch let error as any APIErrorConvertible {
            return WebFlash.redirect(to: Self.setupPath, error: error.apiError)
        }
    }

    /// Post/redirect/get for codes shown once: the answer to the form redirects to the codes' page with the
    /// codes sealed for this session in a short-lived cookie, which that page reads and clears. Back or a
    /// reload then shows no codes (and sends no form again); the page says to make new ones.
    func showCodes(_ codes: [String], session: AuthenticatedSession, notice: Notice) throws -> Response {
        let sealed = try secondFactors.box.sealShown(codes, for: session.user.id, session: session.sessionID, at: secondFactors.now())
        var response = WebSessions.redirect(to: Self.codesPath + "?notice=\(notice.rawValue)")
        let value = Base64URL.encode(sealed)
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(Self.codesCookieName, value, maxAge: Int(SecretBox.shownFor))))
        return response
    }

    func shown(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let codes = request.cookie(Self.codesCookieName).flatMap { $0.utf8.count <= 2048 ? Base64URL.decode($0) : nil }.flatMap {
            secondFactors.box.openShown($0, for: session.user.id, session: session.sessionID, at: secondFactors.now())
        }
        guard let codes, !codes.isEmpty else {
            return AccountPages.refused(
                APIError(
                    .gone, .notFound,
                    "Recovery codes are shown once, and these were shown already. If you did not save them, make new ones under Two-step sign-in."))
        }
        let notice = request.uri.queryParameters.get("notice").flatMap(Notice.init(rawValue:))?.text
        let text =
            "Chatter recovery codes for \(session.user.displayName)\nEach works once, in place of the app's code.\n\n" + codes.joined(separator: "\n") + "\n"
        let download = "data:text/plain;charset=utf-8," + (text.addingPercentEncoding(withAllowedCharacters: WebSessions.queryValue) ?? "")
        var response = pages.render(
            "two-step-codes", CodesPage(frame: pages.frame("Your recovery codes", visitor, notice: notice), codes: codes, download: download),
            visitor: visitor)
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(Self.codesCookieName)))
        return response
    }

    // MARK: Renewing and removing

    func regenerate(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(CodeForm.self, for: .recoveryCodes, request, context, visitor: visitor)
        do {
            let codes = try await secondFactors.regenerateRecoveryCodes(session.user, code: form.code, client: context.client(request))
            return try showCodes(codes, session: session, notice: .newRecoveryCodes)
        } catch let error as any APIErrorConvertible {
            return AccountPages.refused(error.apiError)
        }
    }

    func disable(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(CodeForm.self, for: .secondFactorDisable, request, context, visitor: visitor)
        do {
            try await secondFactors.disable(session.user, code: form.code, client: context.client(request))
        } catch let error as any APIErrorConvertible {
            return AccountPages.refused(error.apiError)
        }
        return WebSessions.redirect(to: "/account?notice=\(Notice.twoStepOff.rawValue)")
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension SecondFactorAccountPages.SetupPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "qr": qr
        case "secret": secret
        case "uri": uri
        default: nil
        }
    }
}

extension SecondFactorAccountPages.CodesPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "codes": codes
        case "download": download
        default: nil
        }
    }
}
