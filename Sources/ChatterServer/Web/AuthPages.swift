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
        router.post(RouterPath(FormAction.identify.route)) { request, context in try await identify(request, context) }
        router.get(RouterPath(Self.waysPath)) { request, context in try await waysPage(request, visitor: try context.requireVisitor()) }
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

    /// The address waiting for its code, kept in the browser between the two steps, with what the code step
    /// must show next (post/redirect/get: a refused code redirects back to the page, which reads it here).
    /// Only this origin can set a `__Host-` cookie, and whatever it holds is shown as escaped text; a
    /// password is never kept.
    struct Pending: Codable {
        var email: String
        var purpose: Purpose
        var sentAt: Double
        var next: String?
        /// Codes refused in this browser since the last one was sent: after the code's guesses, the page
        /// says to ask for a new one rather than "wrong code" again (the server refuses the right one too).
        var tries: Int?
        /// Why the last attempt was refused, said once.
        var problem: String?
        /// What the person typed, kept for the page after a refusal (never a password).
        var code: String?
        var name: String?
        /// A notice for the next showing ("a code went out moments ago").
        var notice: String?

        var cookie: String {
            // fail-closed: a cookie that does not encode is empty and reads back as no pending address: the user starts again
            let json = (try? JSONEncoder().encode(self)) ?? Data()
            return WebCookie.make(
                WebVisitor.pendingCookieName, Base64.encodeToString(bytes: json, options: [.base64UrlAlphabet, .omitPaddingCharacter]), maxAge: 900)
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
            guard value.utf8.count <= Self.maximumCookieBytes,
                let bytes = try? Base64.decode(string: value, options: [.base64UrlAlphabet, .omitPaddingCharacter]),
                let pending = try? JSONDecoder().decode(Pending.self, from: Data(bytes)),
                let email = EmailAddress.normalize(pending.email)
            else { return nil }
            self = pending
            self.email = email
            self.next = pending.next.flatMap(WebSessions.sameSitePath)
            self.tries = pending.tries.map { min(max($0, 0), 100) }
            // Kept text is the page's own, bounded: anything longer is dropped, not shown.
            self.problem = pending.problem.flatMap { $0.utf8.count <= 300 ? $0 : nil }
            self.notice = pending.notice.flatMap { $0.utf8.count <= 300 ? $0 : nil }
            self.code = pending.code.flatMap { $0.utf8.count <= 32 ? $0 : nil }
            self.name = pending.name.flatMap { $0.exceeds(Limits.nameCharacters) ? nil : $0 }
        }

        static let maximumCookieBytes = 3000

        /// The same address and step, without what was said or typed for the last showing.
        var settled: Pending {
            var pending = self
            (pending.problem, pending.code, pending.name, pending.notice) = (nil, nil, nil, nil)
            return pending
        }
    }

    // MARK: pages

    struct SignInPage: PageContent {
        let frame: PageFrame
        let next: String
        let email: String
        let google: String?
    }

    /// Identifier first: one email field (the browser offers its passkeys in it), a passkey button, Google.
    /// Errors come back here by redirect (`WebFlash`), with the address typed kept.
    func signInPage(_ request: Request, visitor: WebVisitor) async throws -> Response {
        let next = request.uri.queryParameters.get("next").flatMap(WebSessions.sameSitePath) ?? ""
        let error = WebFlash.message(request)
        if visitor.session != nil, error == nil { return WebSessions.redirect(to: next.isEmpty ? "/" : next) }
        let page = SignInPage(
            frame: pages.frame("Sign in", visitor, error: error), next: next, email: Identifier(request)?.email ?? "",
            google: pages.policy.googleWebClientID)
        return WebFlash.cleared(pages.render("auth", page, visitor: visitor, google: true), for: request)
    }

    /// Back to the sign-in page with `error` said there, and what was typed kept in its field.
    func refuseSignIn(_ error: APIError, email: String, next: String?) -> Response {
        Self.refuse(error, at: "/auth" + Self.nextQuery(next), email: email, next: next)
    }

    /// Back to `path` (a step that asks for the address or follows from it) with `error` said there, and the
    /// address typed kept for it (`Identifier`): every refusal of the sign-in steps.
    static func refuse(_ error: APIError, at path: String, email: String, next: String?) -> Response {
        var response = WebFlash.redirect(to: path, error: error)
        response.headers.append(HTTPField(name: .setCookie, value: Identifier(email: email, next: next).cookie))
        return response
    }

    static func nextQuery(_ next: String?) -> String {
        guard let next = next.flatMap(WebSessions.sameSitePath), !next.isEmpty else { return "" }
        return "?next=" + (next.addingPercentEncoding(withAllowedCharacters: WebSessions.queryValue) ?? "")
    }

    /// The address typed on the first step, kept in the browser for the second (never in a URL, which
    /// history and logs keep). Only this origin sets a `__Host-` cookie, and the address is shown as text.
    struct Identifier: Codable {
        static let cookieName = "__Host-chatter-identifier"
        var email: String
        var next: String?

        init(email: String, next: String?) {
            self.email = String(email.prefix(EmailAddress.maximumBytes * 2))
            self.next = next.flatMap(WebSessions.sameSitePath)
        }

        init?(_ request: Request) {
            guard let value = request.cookie(Self.cookieName) else { return nil }
            self.init(cookie: value)
        }

        /// Whatever the browser sends back: an address of at most twice email's length and a same-site `next`.
        init?(cookie value: String) {
            // fail-closed: a cookie that does not decode is no identifier: the first step asks again
            guard value.utf8.count <= 2048,
                let bytes = try? Base64.decode(string: value, options: [.base64UrlAlphabet, .omitPaddingCharacter]),
                let decoded = try? JSONDecoder().decode(Identifier.self, from: Data(bytes))
            else { return nil }
            self.init(email: decoded.email, next: decoded.next)
        }

        var cookie: String {
            // fail-closed: a cookie that does not encode is empty: the first step asks again
            let json = (try? JSONEncoder().encode(self)) ?? Data()
            return WebCookie.make(Self.cookieName, Base64.encodeToString(bytes: json, options: [.base64UrlAlphabet, .omitPaddingCharacter]), maxAge: 1800)
        }
    }

    static let waysPath = "/auth/ways"

    struct IdentifyForm: WebForm {
        let csrf: String
        let email: String
        let next: String?
    }

    /// The first step: an address that can be one goes on to the ways to sign in; one that cannot comes
    /// back with what to fix. Whether it has an account is not looked up: every address gets the same page.
    func identify(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(IdentifyForm.self, for: .identify, request, context, visitor: visitor)
        guard let email = EmailAddress.normalize(form.email) else { return refuseSignIn(Self.addressProblem(form.email), email: form.email, next: form.next) }
        var response = WebSessions.redirect(to: Self.waysPath)
        response.headers.append(HTTPField(name: .setCookie, value: Identifier(email: email, next: form.next).cookie))
        return response
    }

    struct WaysPage: PageContent {
        let frame: PageFrame
        let email: String
        let next: String
        let minimumLength: Int
    }

    /// The second step, the same for every address (so it tells no one whether an account exists): an
    /// emailed code, the password, or a passkey; a refusal comes back here with its reason.
    func waysPage(_ request: Request, visitor: WebVisitor) async throws -> Response {
        guard let identifier = Identifier(request), let email = EmailAddress.normalize(identifier.email) else {
            return WebSessions.redirect(to: "/auth")
        }
        if visitor.session != nil, WebFlash.message(request) == nil { return WebSessions.redirect(to: identifier.next ?? "/") }
        let page = WaysPage(
            frame: pages.frame("Sign in", visitor, error: WebFlash.message(request)), email: email, next: identifier.next ?? "",
            minimumLength: passwords.rules.minimumLength)
        return WebFlash.cleared(pages.render("ways", page, visitor: visitor), for: request)
    }

    struct StartPage: PageContent {
        let frame: PageFrame
        let heading: String
        let explanation: String
        let purpose: String
        let next: String
        let email: String
    }

    func startPage(_ request: Request, _ purpose: Purpose, visitor: WebVisitor) async throws -> Response {
        let explanation =
            purpose == .signup
            ? "Enter your email. We send a code to prove it is yours; then you choose a password."
            : "Enter your account's email. We send a code to prove it is yours; then you choose a new password."
        let page = StartPage(
            frame: pages.frame(purpose.heading, visitor, error: WebFlash.message(request)), heading: purpose.heading, explanation: explanation,
            purpose: purpose.rawValue, next: request.uri.queryParameters.get("next").flatMap(WebSessions.sameSitePath) ?? "",
            email: Identifier(request)?.email ?? "")
        return WebFlash.cleared(pages.render("start", page, visitor: visitor), for: request)
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
        /// The code can still be typed: not expired, and fewer refusals than its guesses.
        let open: Bool
        /// Why it cannot, and what to do: ask for a new one.
        let closed: String?
        let minutes: Int
        /// What was typed before a refusal, kept in its field (which then takes the focus).
        let code: String
        let name: String
        let refused: Bool
    }

    /// The code step, in whichever state the pending address is: waiting for the code (with the resend
    /// countdown), refused (what was typed kept, the reason said), or closed (expired, or its guesses spent)
    /// with a new code on offer. Reading the page clears what the last refusal left.
    func codePage(_ request: Request, visitor: WebVisitor) async throws -> Response {
        guard let pending = Pending(request) else { return WebSessions.redirect(to: "/auth") }
        let limits = emailCodes.codes.limits
        let elapsed = now().timeIntervalSince1970 - pending.sentAt
        let wait = max(0, min(Int(limits.cooldown), Int((limits.cooldown - elapsed).rounded(.up))))
        let closed: String? =
            if elapsed >= limits.lifetime {
                "That code has expired: codes work for \(Int(limits.lifetime / 60)) minutes. Ask for a new one below."
            } else if (pending.tries ?? 0) >= limits.maximumGuesses {
                "That code was typed wrong \(limits.maximumGuesses) times, so it no longer works. Ask for a new one below."
            } else {
                nil
            }
        let page = CodePage(
            frame: pages.frame(pending.purpose.heading, visitor, notice: pending.notice, error: closed == nil ? pending.problem : nil),
            heading: pending.purpose.heading, email: pending.email, signUp: pending.purpose == .signup, needsPassword: pending.purpose != .signin,
            minimumLength: passwords.rules.minimumLength, action: pending.purpose.action, wait: wait, waiting: wait > 0, restart: pending.purpose.start,
            open: closed == nil, closed: closed, minutes: Int(limits.lifetime / 60), code: closed == nil ? pending.code ?? "" : "",
            name: pending.name ?? "", refused: pending.problem != nil && closed == nil)
        var response = pages.render("code", page, visitor: visitor)
        if pending.problem != nil || pending.code != nil || pending.notice != nil || pending.name != nil {
            response.headers.append(HTTPField(name: .setCookie, value: pending.settled.cookie))
        }
        return response
    }

    /// Back to the code step with `pending` as it now is.
    static func showCode(_ pending: Pending) -> Response {
        var response = WebSessions.redirect(to: "/auth/code")
        response.headers.append(HTTPField(name: .setCookie, value: pending.cookie))
        return response
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
        let refuse = { (error: APIError) in Self.refuse(error, at: form.purpose.start + Self.nextQuery(form.next), email: form.email, next: form.next) }
        guard let email = EmailAddress.normalize(form.email) else { return refuse(Self.addressProblem(form.email)) }
        do {
            return try await send(email, form.purpose, next: form.next, request, context)
        } catch let limit as LimitReached where limit.limit == .emailCodeResend {
            // A second click, or a second tab: the code that went out moments ago is the one to type. The
            // cooldown is the address's, whoever asked, and says nothing of an account.
            var pending = Pending(
                email: email, purpose: form.purpose, sentAt: now().timeIntervalSince1970 - emailCodes.codes.limits.cooldown + Double(limit.retryAfter),
                next: form.next.flatMap(WebSessions.sameSitePath))
            pending.notice = "A code went to this address moments ago: type it below. It may take a minute to arrive."
            return Self.showCode(pending)
        } catch let error as any APIErrorConvertible {
            return refuse(error.apiError)
        } catch let refused as MailRefused {
            return refuse(refused.apiError)
        }
    }

    /// What to fix in an address the form could not use, in words that say what to do.
    static func addressProblem(_ raw: String) -> APIError {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let message =
            if trimmed.isEmpty {
                "Enter your email address."
            } else if trimmed.utf8.count > EmailAddress.maximumBytes {
                "That address is longer than email allows (\(EmailAddress.maximumBytes) characters). Check it, or use another."
            } else if !trimmed.contains("@") {
                "An email address has an @ in it, like name@example.com. Check it and try again."
            } else if trimmed.unicodeScalars.contains(where: { !EmailAddress.isVisible($0) }) {
                "That address has a space or an invisible character in it. Type it again without it."
            } else {
                "That is not an address we can send mail to. Check it for typos, or use another."
            }
        return APIError(.badRequest, .invalidEmail, message)
    }

    /// The mail server refused the address for good: the page says so instead of "we sent a code".
    struct MailRefused: Error {
        let email: String
        var apiError: APIError {
            APIError(
                .unprocessableContent, .invalidEmail,
                "The mail server for \(email) refused it, so no code was sent. Check the address for typos, or use another.")
        }
    }

    func resend(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        _ = try await web.form(CSRFOnly.self, for: .resendCode, request, context, visitor: visitor)
        guard let pending = Pending(request) else { return WebSessions.redirect(to: "/auth") }
        do {
            return try await send(pending.email, pending.purpose, next: pending.next, request, context)
        } catch let error as any APIErrorConvertible {
            var refused = pending.settled
            refused.problem = error.apiError.body.message
            return Self.showCode(refused)
        } catch is MailRefused {
            var refused = pending.settled
            refused.problem = MailRefused(email: pending.email).apiError.body.message
            return Self.showCode(refused)
        }
    }

    private func send(_ email: String, _ purpose: Purpose, next: String?, _ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let sent = try await emailCodes.send(
            to: email, purpose: purpose == .reset ? .passwordReset : .signIn, client: context.client(request),
            deviceToken: request.cookie(WebVisitor.deviceCookieName))
        var pending = Pending(email: email, purpose: purpose, sentAt: now().timeIntervalSince1970, next: next.flatMap(WebSessions.sameSitePath))
        switch sent.delivery {
        case .sent: break
        case .recipientRefused: throw MailRefused(email: email)
        case .failed:
            pending.problem = "We could not send the mail just now (our mail server did not answer). Ask for a new code in a minute, or sign in another way."
        }
        return Self.showCode(pending)
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
            var refused = pending.settled
            let wrongCode = (error as? SignInError) == .invalidCode
            if wrongCode { refused.tries = (pending.tries ?? 0) + 1 }
            refused.problem =
                wrongCode
                ? "That code is not right, or it was used already. Check the newest mail from us and type its code, or ask for a new one."
                : error.apiError.body.message
            // What was typed stays in its field, to be corrected rather than typed again.
            refused.code = String(form.code.prefix(32))
            refused.name = form.displayName.map { String($0.prefix(Limits.nameCharacters)) }
            return Self.showCode(refused)
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
            // Back to the ways to sign in for this address, saying why (post/redirect/get).
            return Self.refuse(error.apiError, at: Self.waysPath, email: form.email, next: form.next)
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

extension AuthPages.WaysPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "email": email
        case "next": next
        case "minimumLength": minimumLength
        default: nil
        }
    }
}

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
        case "open": open
        case "closed": closed
        case "minutes": minutes
        case "code": code
        case "name": name
        case "refused": refused
        default: nil
        }
    }
}
