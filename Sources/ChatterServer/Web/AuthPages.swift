import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import ExtrasBase64
import Foundation
import HTTPTypes
import Hummingbird

/// `/auth`: sign-in with an emailed code or a password, sign-up and reset (each proven with an emailed
/// code, as in the native API), and Google when a web client ID is configured. The same flows, limits and
/// device allowance as the native API; only the answers differ (pages and redirects instead of JSON).
struct AuthPages {
    let emailCodes: EmailCodeFlow
    let passwords: PasswordFlow
    let providers: ProviderSignIn
    let signIn: SignInService
    let pages: WebPages
    let web: WebSessions
    let now: @Sendable () -> Date

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.get("auth") { request, context in try await signInPage(request, visitor: try context.requireVisitor()) }
        router.get("auth/signup") { request, context in try await startPage(request, .signup, visitor: try context.requireVisitor()) }
        router.get("auth/reset") { request, context in try await startPage(request, .reset, visitor: try context.requireVisitor()) }
        router.post(RouterPath(FormAction.sendCode.route)) { request, context in try await sendCode(request, context) }
        router.get("auth/code") { request, context in try await codePage(request, visitor: try context.requireVisitor()) }
        router.post(RouterPath(FormAction.resendCode.route)) { request, context in try await resend(request, context) }
        router.post(RouterPath(FormAction.verifyCode.route)) { request, context in try await verify(request, context) }
        router.post(RouterPath(FormAction.password.route)) { request, context in try await password(request, context) }
        router.post("auth/google") { request, context in try await google(request, context) }
    }

    /// What an emailed code is for: the code step shows the fields each needs.
    enum Purpose: String, Codable {
        case signin, signup, reset

        var heading: String {
            switch self {
            case .signin: "Enter your code"
            case .signup: "Create your account"
            case .reset: "Choose a new password"
            }
        }

        /// The code step's button.
        var action: String {
            switch self {
            case .signin: "Sign in"
            case .signup: "Create account"
            case .reset: "Set password and sign in"
            }
        }

        /// Where "Use a different email" goes: the page that asked for this code.
        var start: String { self == .signin ? "/auth" : "/auth/\(rawValue)" }
    }

    /// The address waiting for its code, kept in the browser between the two steps.
    struct Pending: Codable {
        var email: String
        var purpose: Purpose
        var sentAt: Double
        var next: String?

        var cookie: String {
            // fail-closed: a cookie that does not encode is empty and reads back as no pending address: the user starts again
            let json = (try? JSONEncoder().encode(self)) ?? Data()
            return WebCookie.make(
                WebVisitor.pendingCookieName, Base64.encodeToString(bytes: json, options: [.base64UrlAlphabet, .omitPaddingCharacter]), maxAge: 600)
        }

        init(email: String, purpose: Purpose, sentAt: Double, next: String?) {
            self.email = email
            self.purpose = purpose
            self.sentAt = sentAt
            self.next = next
        }

        init?(_ request: Request) {
            guard let value = request.cookie(WebVisitor.pendingCookieName) else { return nil }
            self.init(cookie: value)
        }

        /// Whatever the browser sends back: an address that normalizes and a same-site `next`, or nothing.
        init?(cookie value: String) {
            // fail-closed: a cookie that does not decode is nil: no pending address, the user starts again
            guard value.utf8.count <= 1024,
                let bytes = try? Base64.decode(string: value, options: [.base64UrlAlphabet, .omitPaddingCharacter]),
                let pending = try? JSONDecoder().decode(Pending.self, from: Data(bytes)),
                let email = EmailAddress.normalize(pending.email)
            else { return nil }
            self = pending
            self.email = email
            self.next = pending.next.flatMap(WebSessions.sameSitePath)
        }
    }

    // MARK: pages

    struct SignInPage: PageContent {
        let frame: PageFrame
        let next: String
        let email: String
        let google: String?
    }

    func signInPage(_ request: Request, visitor: WebVisitor, email: String = "", error: APIError? = nil) async throws -> Response {
        let next = request.uri.queryParameters.get("next").flatMap(WebSessions.sameSitePath) ?? ""
        if visitor.session != nil, error == nil { return WebSessions.redirect(to: next.isEmpty ? "/" : next) }
        let page = SignInPage(
            frame: pages.frame("Sign in", visitor, error: error?.body.message), next: next, email: email, google: pages.policy.googleWebClientID)
        return pages.render("auth", page, status: error?.status ?? .ok, visitor: visitor, google: true)
    }

    struct StartPage: PageContent {
        let frame: PageFrame
        let heading: String
        let explanation: String
        let purpose: String
        let next: String
        let email: String
    }

    func startPage(_ request: Request, _ purpose: Purpose, visitor: WebVisitor, email: String = "", error: APIError? = nil) async throws -> Response {
        let explanation =
            purpose == .signup
            ? "Enter your email. We send a code to prove it is yours; then you choose a password."
            : "Enter your account's email. We send a code to prove it is yours; then you choose a new password."
        let page = StartPage(
            frame: pages.frame(purpose.heading, visitor, error: error?.body.message), heading: purpose.heading, explanation: explanation,
            purpose: purpose.rawValue, next: request.uri.queryParameters.get("next").flatMap(WebSessions.sameSitePath) ?? "", email: email)
        return pages.render("start", page, status: error?.status ?? .ok, visitor: visitor)
    }

    struct CodePage: PageContent {
        let frame: PageFrame
        let heading: String
        let email: String
        let signUp: Bool
        let needsPassword: Bool
        let minimumLength: Int
        let nameLength = Limits.nameCharacters
        let action: String
        let wait: Int
        let waiting: Bool
        let restart: String
    }

    func codePage(_ request: Request, visitor: WebVisitor, error: APIError? = nil) async throws -> Response {
        guard let pending = Pending(request) else { return WebSessions.redirect(to: "/auth") }
        let elapsed = now().timeIntervalSince1970 - pending.sentAt
        let cooldown = emailCodes.codes.limits.cooldown
        let wait = max(0, min(Int(cooldown), Int((cooldown - elapsed).rounded(.up))))
        let page = CodePage(
            frame: pages.frame(pending.purpose.heading, visitor, error: error?.body.message), heading: pending.purpose.heading,
            email: pending.email, signUp: pending.purpose == .signup, needsPassword: pending.purpose != .signin,
            minimumLength: passwords.rules.minimumLength,
            action: pending.purpose.action, wait: wait, waiting: wait > 0, restart: pending.purpose.start)
        return pages.render("code", page, status: error?.status ?? .ok, visitor: visitor)
    }

    // MARK: forms

    struct CodeForm: WebForm {
        let csrf: String
        let purpose: Purpose
        let email: String
        let next: String?
    }

    func sendCode(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(CodeForm.self, for: .sendCode, request, context, visitor: visitor)
        do {
            let email = try EmailCodeFlow.address(form.email)
            return try await send(email, form.purpose, next: form.next, request, context)
        } catch let error as any APIErrorConvertible {
            if form.purpose == .signin { return try await signInPage(request, visitor: visitor, email: form.email, error: error.apiError) }
            return try await startPage(request, form.purpose, visitor: visitor, email: form.email, error: error.apiError)
        }
    }

    func resend(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        _ = try await web.form(CSRFOnly.self, for: .resendCode, request, context, visitor: visitor)
        guard let pending = Pending(request) else { return WebSessions.redirect(to: "/auth") }
        do {
            return try await send(pending.email, pending.purpose, next: pending.next, request, context)
        } catch let error as any APIErrorConvertible {
            return try await codePage(request, visitor: visitor, error: error.apiError)
        }
    }

    private func send(_ email: String, _ purpose: Purpose, next: String?, _ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        _ = try await emailCodes.send(
            to: email, purpose: purpose == .reset ? .passwordReset : .signIn, client: context.client(request),
            deviceToken: request.cookie(WebVisitor.deviceCookieName))
        var response = WebSessions.redirect(to: "/auth/code")
        let pending = Pending(email: email, purpose: purpose, sentAt: now().timeIntervalSince1970, next: next.flatMap(WebSessions.sameSitePath))
        response.headers.append(HTTPField(name: .setCookie, value: pending.cookie))
        return response
    }

    struct VerifyForm: WebForm {
        let csrf: String
        let code: String
        let displayName: String?
        let password: String?
    }

    func verify(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(VerifyForm.self, for: .verifyCode, request, context, visitor: visitor)
        guard let pending = Pending(request) else { return WebSessions.redirect(to: "/auth") }
        let client = context.client(request)
        do {
            let user: User
            switch pending.purpose {
            case .signin:
                user = try await emailCodes.signIn(email: pending.email, code: form.code, client: client)
            case .signup:
                let name = form.displayName.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
                (user, _) = try await passwords.signUp(
                    email: pending.email, password: form.password ?? "", displayName: name, code: form.code, client: client)
            case .reset:
                (user, _) = try await passwords.reset(
                    email: pending.email, newPassword: form.password ?? "", code: form.code, client: client)
            }
            let method: SignInMethod = pending.purpose == .signin ? .email : .password
            return try await web.signedIn(
                SignInFlow(user: user, method: method, email: pending.email, device: request.cookie(WebVisitor.deviceCookieName)), client: client,
                next: pending.next, replacing: visitor)
        } catch SecondFactorError.required(let challenge?) {
            // A new password on an account with a second factor waits for it: nothing changed yet.
            return SecondFactorPages.ask(challenge, next: pending.next, visitor: visitor)
        } catch let error as any APIErrorConvertible {
            return try await codePage(request, visitor: visitor, error: error.apiError)
        }
    }

    struct PasswordForm: WebForm {
        let csrf: String
        let email: String
        let password: String
        let next: String?
    }

    func password(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(PasswordForm.self, for: .password, request, context, visitor: visitor)
        let client = context.client(request)
        do {
            let (user, email) = try await passwords.signIn(
                email: form.email, password: form.password, deviceToken: request.cookie(WebVisitor.deviceCookieName), client: client)
            return try await web.signedIn(
                SignInFlow(user: user, method: .password, email: email, device: request.cookie(WebVisitor.deviceCookieName)), client: client,
                next: form.next, replacing: visitor)
        } catch let error as any APIErrorConvertible {
            return try await signInPage(request, visitor: visitor, email: form.email, error: error.apiError)
        }
    }

    /// Google Identity Services posts the ID token here, with its own double-submit CSRF cookie
    /// (`g_csrf_token`), since the post may come from Google's page. The token is verified exactly as
    /// `/v1/auth/google` verifies one, for the web client ID.
    struct GoogleForm: Decodable {
        let credential: String
        let csrfToken: String

        enum CodingKeys: String, CodingKey {
            case credential
            case csrfToken = "g_csrf_token"  // Google's field name
        }
    }

    func google(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        guard let clientID = pages.policy.googleWebClientID else {
            throw APIError(.notFound, .notFound, "Google sign-in is not configured on this server.")
        }
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        // fail-closed: a form that does not decode is refused with 400 before any token is read
        guard let form = try? URLEncodedFormDecoder().decode(GoogleForm.self, from: String(buffer: buffer)) else {
            throw APIError(.badRequest, .invalidForm, "Google's answer was incomplete; try again.")
        }
        guard let cookie = request.cookie("g_csrf_token"),
            constantTimeEqual(Array(cookie.utf8), Array(form.csrfToken.utf8))
        else {
            throw APIError(.forbidden, .csrfFailed, "Google's answer did not come from this browser; try again.")
        }
        let client = context.client(request)
        let flow = try await providers.google(form.credential, clientID: clientID, client: client)
        return try await web.signedIn(flow, client: client, next: nil, replacing: try context.requireVisitor())
    }
}

struct CSRFOnly: WebForm {
    let csrf: String
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension AuthPages.SignInPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "next": next
        case "email": email
        case "google": google
        default: nil
        }
    }
}

extension AuthPages.StartPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "heading": heading
        case "explanation": explanation
        case "purpose": purpose
        case "next": next
        case "email": email
        default: nil
        }
    }
}

extension AuthPages.CodePage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "heading": heading
        case "email": email
        case "signUp": signUp
        case "needsPassword": needsPassword
        case "minimumLength": minimumLength
        case "nameLength": nameLength
        case "action": action
        case "wait": wait
        case "waiting": waiting
        case "restart": restart
        default: nil
        }
    }
}
