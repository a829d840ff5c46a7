import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// `/account`: the profile, the passkeys (`PasskeyPages` handles their forms), the sessions with
/// "revoke", sign-out (this browser or everywhere), and deleting the account after a confirmation step.
struct AccountPages {
    let accounts: AccountService
    let emailChange: EmailChange
    let passwords: PasswordFlow
    let passkeys: PasskeyService
    let secondFactors: SecondFactorService
    let stepUp: StepUp
    let pages: WebPages
    let web: WebSessions

    /// `signedIn`: the pages' routes that need a session (`SignedInPagesMiddleware`).
    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        signedIn.get("account") { request, context in try await show(request, context) }
        signedIn.post(RouterPath(FormAction.rename.route)) { request, context in try await rename(request, context) }
        signedIn.post(RouterPath(FormAction.emailStart.route)) { request, context in try await startEmailChange(request, context) }
        signedIn.get(RouterPath(Self.emailPath)) { request, context in try await emailPage(request, context) }
        signedIn.post(RouterPath(FormAction.emailConfirm.route)) { request, context in try await confirmEmailChange(request, context) }
        signedIn.post(RouterPath(FormAction.passwordAdd.route)) { request, context in try await addPassword(request, context) }
        signedIn.post(RouterPath(FormAction.passwordChange.route)) { request, context in try await changePassword(request, context) }
        signedIn.post(RouterPath(FormAction.revokeSession.route)) { request, context in try await revoke(request, context) }
        // Signing out a browser that is signed out already is no error: it lands on the timeline.
        router.post(RouterPath(FormAction.signOut.route)) { request, context in try await signOut(request, context) }
        signedIn.get("account/delete") { _, context in try await confirmDeletion(context) }
        signedIn.get("account/passkeys/:id/remove") { _, context in try await confirmPasskeyRemoval(context) }
        signedIn.post(RouterPath(FormAction.deleteAccount.route)) { request, context in try await delete(request, context) }
    }

    struct Page: PageContent {
        struct Item {
            let id, device, createdISO, createdUTC, usedISO, usedUTC: String
            /// Where it signed in from, roughly: the network, never the whole address.
            let network: String?
            let current: Bool
        }
        struct Passkey {
            let id, name, createdISO, createdUTC: String
            let authenticator: String?
            let usedISO, usedUTC: String?
            let synced, flagged: Bool
        }
        struct Event {
            let text, iso, utc: String
            let device: String?
        }
        let frame: PageFrame
        let name: String
        let nameLength = Limits.nameCharacters
        let email: String?
        let methods: String
        let hasPassword: Bool
        let minimumLength: Int
        let passkeys: [Passkey]
        let passkeyNameLength = PasskeyService.maximumNameLength
        let sessions: [Item]
        let events: [Event]
        let twoStep: SecondFactorStatus
        /// An operator's page links to /admin.
        let isOperator: Bool
    }

    /// The page, with what a refused form on it left to say (`WebFlash`).
    func show(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let profile = try await accounts.profile(session.user)
        let records = try await accounts.sessions(of: session.user)
        let error = WebFlash.message(request)
        let notice = error == nil ? request.uri.queryParameters.get("notice").flatMap(Notice.init(rawValue:))?.text : nil
        let page = Page(
            frame: pages.frame("Your account", visitor, notice: notice, error: error), name: profile.displayName, email: profile.email,
            methods: profile.methods.joined(separator: ", "), hasPassword: profile.methods.contains(SignInMethod.password.rawValue),
            minimumLength: passwords.rules.minimumLength,
            passkeys: try await passkeys.list(session.user).map {
                let created = Date(timeIntervalSince1970: $0.createdAt)
                let used = $0.lastUsedAt.map { Date(timeIntervalSince1970: $0) }
                return Page.Passkey(
                    id: $0.id, name: $0.name, createdISO: TimeText.iso(created), createdUTC: TimeText.utc(created), authenticator: $0.authenticator,
                    usedISO: used.map(TimeText.iso), usedUTC: used.map(TimeText.utc), synced: $0.synced, flagged: $0.flagged)
            },
            sessions: records.map {
                Page.Item(
                    id: $0.id.uuidString, device: Self.describe($0), createdISO: TimeText.iso($0.createdAt), createdUTC: TimeText.utc($0.createdAt),
                    usedISO: TimeText.iso($0.lastUsedAt), usedUTC: TimeText.utc($0.lastUsedAt), network: $0.ip.flatMap(ApproximateAddress.text),
                    current: $0.id == session.sessionID)
            },
            events: try await accounts.history(of: session.user, limit: Self.eventsShown).map {
                let at = Date(timeIntervalSince1970: $0.at)
                return Page.Event(
                    text: AccountEventText.sentence($0.kind), iso: TimeText.iso(at), utc: TimeText.utc(at),
                    device: $0.byOperator ? "by the server's operator" : $0.userAgent.map(UserAgentName.short))
            },
            twoStep: try await secondFactors.status(session.user.id), isOperator: try await accounts.isOperator(session.user))
        return WebFlash.cleared(pages.render("account", page, visitor: visitor), for: request)
    }

    /// The newest security events the page lists; the native API's history has up to `AccountService.historyLimit`.
    static let eventsShown = 10

    /// Back to the account page, saying why a form on it was refused (post/redirect/get).
    static func refused(_ error: APIError) -> Response { WebFlash.redirect(to: "/account", error: error) }

    struct NameForm: WebForm {
        let csrf: String
        let name: String
    }

    func rename(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(NameForm.self, for: .rename, request, context, visitor: visitor)
        do {
            try await accounts.rename(session, to: form.name)
        } catch let error as any APIErrorConvertible {
            return Self.refused(error.apiError)
        }
        return WebSessions.redirect(to: "/account?notice=\(Notice.renamed.rawValue)")
    }

    // MARK: The address

    static let emailPath = "/account/email"
    /// The new address waiting for its code, kept in the browser between the two steps (never in a URL).
    static let newEmailCookieName = "__Host-chatter-new-email"

    struct EmailForm: WebForm {
        let csrf: String
        let email: String
    }

    /// A code to the new address, once the session proved it is its owner recently; then the code's page.
    func startEmailChange(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(EmailForm.self, for: .emailStart, request, context, visitor: visitor)
        guard EmailAddress.normalize(form.email) != nil else { return Self.refused(AuthPages.addressProblem(form.email)) }
        let address: String
        do {
            let started = try await emailChange.start(session, to: form.email, client: context.client(request))
            if started.sent.delivery == .recipientRefused { return Self.refused(AuthPages.MailRefused(email: started.address).apiError) }
            address = started.address
        } catch SecondFactorError.stepUpRequired, SecondFactorError.signInAgain {
            return StepUpPages.ask(returningTo: "/account")
        } catch let limit as LimitReached where limit.limit == .emailCodeResend {
            // A second click: the code that went out moments ago is the one to type.
            address = EmailAddress.normalize(form.email) ?? form.email
        } catch let error as any APIErrorConvertible {
            return Self.refused(error.apiError)
        }
        var response = WebSessions.redirect(to: Self.emailPath)
        let value = Base64URL.encode(Array(address.utf8))
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(Self.newEmailCookieName, value, maxAge: 900)))
        return response
    }

    static func newEmail(_ request: Request) -> String? {
        // A made-up value is only an address the code must then prove: normalized again, or none.
        request.cookie(newEmailCookieName).flatMap { $0.utf8.count <= 1400 ? Base64URL.decode($0) : nil }.flatMap {
            EmailAddress.normalize(String(decoding: $0, as: UTF8.self))
        }
    }

    struct EmailPage: PageContent {
        let frame: PageFrame
        let email: String
    }

    func emailPage(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, _) = try context.requireSignedIn()
        guard let address = Self.newEmail(request) else { return WebSessions.redirect(to: "/account") }
        let page = EmailPage(frame: pages.frame("Confirm your new address", visitor, error: WebFlash.message(request)), email: address)
        return WebFlash.cleared(pages.render("account-email", page, visitor: visitor), for: request)
    }

    struct EmailCodeForm: WebForm {
        let csrf: String
        let code: String
    }

    func confirmEmailChange(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(EmailCodeForm.self, for: .emailConfirm, request, context, visitor: visitor)
        guard let address = Self.newEmail(request) else { return WebSessions.redirect(to: "/account") }
        do {
            try await emailChange.confirm(session, address: address, code: form.code, client: context.client(request))
        } catch SecondFactorError.stepUpRequired, SecondFactorError.signInAgain {
            return StepUpPages.ask(returningTo: Self.emailPath)
        } catch AccountError.emailTaken {
            var response = Self.refused(AccountError.emailTaken.apiError)
            response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(Self.newEmailCookieName)))
            return response
        } catch let error as any APIErrorConvertible {
            return WebFlash.redirect(to: Self.emailPath, error: error.apiError)
        }
        var response = WebSessions.redirect(to: "/account?notice=\(Notice.emailChanged.rawValue)")
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(Self.newEmailCookieName)))
        return response
    }

    struct NewPasswordForm: WebForm {
        let csrf: String
        let password: String
        let current: String?
    }

    /// A first password, for an account that signs in another way; it takes a recent sign-in or step-up,
    /// after which the person types it again (a password is never kept to finish the form later).
    func addPassword(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        try await passwordForm(.passwordAdd, done: .passwordAdded, request, context) { session, form, client in
            try await passwords.add(session, password: form.password, client: client)
        }
    }

    /// A new password in place of the current one, which must be typed; the account's other sessions end.
    func changePassword(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        try await passwordForm(.passwordChange, done: .passwordChanged, request, context) { session, form, client in
            try await passwords.change(session, current: form.current ?? "", new: form.password, client: client)
        }
    }

    /// Either password form: its change, a step-up when the session's proof is old, or the refusal said on
    /// the account page.
    private func passwordForm(
        _ action: FormAction, done: Notice, _ request: Request, _ context: ChatterRequestContext,
        _ change: (AuthenticatedSession, NewPasswordForm, ClientInfo) async throws -> Void
    ) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(NewPasswordForm.self, for: action, request, context, visitor: visitor)
        do {
            try await change(session, form, context.client(request))
        } catch SecondFactorError.stepUpRequired, SecondFactorError.signInAgain {
            return StepUpPages.ask(returningTo: "/account#password-heading")
        } catch let error as any APIErrorConvertible {
            return Self.refused(error.apiError)
        }
        return WebSessions.redirect(to: "/account?notice=\(done.rawValue)")
    }

    /// A session as a person recognises it: the browser or app, and how it signed in.
    /// The sign-in says which factors it passed: `Chrome on Linux (password + authenticator app)`.
    static func describe(_ record: SessionRecord) -> String {
        let agent = record.userAgent.map(UserAgentName.short) ?? "Unknown device"
        let factor: String =
            switch record.secondFactor.flatMap(SecondFactorKind.init(rawValue:)) {
            case .totp: " + authenticator app"
            case .recoveryCode: " + recovery code"
            case .rememberedDevice: " + remembered device"
            case .passkey, nil: ""
            }
        // An install App Attest vouched for: the operator's own app on a genuine device.
        return "\(agent) (\(record.method)\(factor))\(record.attestedApp == nil ? "" : ", verified app")"
    }

    func revoke(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        _ = try await web.form(CSRFOnly.self, for: .revokeSession, request, context, visitor: visitor)
        do {
            try await accounts.revoke(context.parameters.get("id").flatMap(UUID.init(uuidString:)), of: session, client: context.client(request))
        } catch SecondFactorError.stepUpRequired {
            return StepUpPages.ask(returningTo: "/account", resume: context.parameters.get("id").flatMap(UUID.init(uuidString:)).map { .revokeSession($0) })
        }
        return WebSessions.redirect(to: "/account?notice=\(Notice.revoked.rawValue)")
    }

    /// Finishes an action a step-up interrupted, once it passed (`StepUpPages`).
    func finish(_ action: StepUpPages.Resume, session: AuthenticatedSession, client: ClientInfo) async throws -> Response {
        switch action {
        case .signOutEverywhere:
            try await accounts.signOut(session, everywhere: true, client: client)
            return Self.signedOut(.signedOutEverywhere)
        case .revokeSession(let id):
            try await accounts.revoke(id, of: session, client: client)
            return WebSessions.redirect(to: "/account?notice=\(Notice.revoked.rawValue)")
        case .addAuthenticator:
            _ = try await secondFactors.beginEnrolment(session, account: try await secondFactors.accountName(session.user))
            return WebSessions.redirect(to: SecondFactorAccountPages.setupPath)
        }
    }

    static func signedOut(_ notice: Notice, then next: String? = nil) -> Response {
        let location = next.flatMap(WebSessions.sameSitePath).map {
            "/auth?next=" + ($0.addingPercentEncoding(withAllowedCharacters: WebSessions.queryValue) ?? "")
        }
        var response = WebSessions.redirect(to: location ?? "/?notice=\(notice.rawValue)")
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(SessionAuthenticator.cookieName)))
        return response
    }

    struct SignOutForm: WebForm {
        let csrf: String
        let scope: String?
        /// Signing in again ("Confirm it is you"): off to the sign-in page, to come back to `next`.
        let next: String?
    }

    func signOut(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        guard let session = visitor.session else { return WebSessions.redirect(to: "/") }
        let form = try await web.form(SignOutForm.self, for: .signOut, request, context, visitor: visitor)
        let everywhere = form.scope == "everywhere"
        do {
            try await accounts.signOut(session, everywhere: everywhere, client: context.client(request))
        } catch SecondFactorError.stepUpRequired {
            return StepUpPages.ask(returningTo: "/account", resume: .signOutEverywhere)
        }
        return Self.signedOut(everywhere ? .signedOutEverywhere : .signedOut, then: everywhere ? nil : form.next)
    }

    /// The only page that carries the deletion form's CSRF token (`FormAction.isDestructive`).
    struct DeletePage: PageContent {
        let frame: PageFrame
        let name: String
        let csrf: String
    }

    func confirmDeletion(_ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        // Asked before the confirmation, so that the step-up comes back to it.
        do { try await stepUp.require(session) } catch SecondFactorError.stepUpRequired {
            return StepUpPages.ask(returningTo: "/account/delete")
        }
        return pages.render(
            "delete",
            DeletePage(
                frame: pages.frame("Delete your account", visitor), name: session.user.displayName,
                csrf: FormAction.deleteAccount.csrfToken(forBrowser: visitor.browserID)), visitor: visitor)
    }

    /// "Remove" asks first, on a page of its own that alone carries the removal's token
    /// (`FormAction.isDestructive`): a passkey removed by a stray click may be the way its owner signs in.
    struct PasskeyRemovalPage: PageContent {
        let frame: PageFrame
        let id: String
        let name: String
        let authenticator: String?
        let csrf: String
    }

    func confirmPasskeyRemoval(_ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let id = context.parameters.get("id") ?? ""
        guard let passkey = try await passkeys.list(session.user).first(where: { $0.id == id }) else {
            return Self.refused(APIError(.notFound, .unknownPasskey, "That passkey is not on your account any more."))
        }
        return pages.render(
            "passkey-remove",
            PasskeyRemovalPage(
                frame: pages.frame("Remove the passkey?", visitor), id: passkey.id, name: passkey.name, authenticator: passkey.authenticator,
                csrf: FormAction.passkeyDelete.csrfToken(forBrowser: visitor.browserID)), visitor: visitor)
    }

    func delete(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        _ = try await web.form(CSRFOnly.self, for: .deleteAccount, request, context, visitor: visitor)
        do {
            try await accounts.deleteAccount(session, client: context.client(request))
        } catch SecondFactorError.stepUpRequired {
            return StepUpPages.ask(returningTo: "/account/delete")
        }
        var response = WebSessions.redirect(to: "/?notice=\(Notice.deleted.rawValue)")
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(SessionAuthenticator.cookieName)))
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(WebVisitor.deviceCookieName)))
        return response
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension AccountPages.Page.Item: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "device": device
        case "createdISO": createdISO
        case "createdUTC": createdUTC
        case "usedISO": usedISO
        case "usedUTC": usedUTC
        case "network": network
        case "current": current
        default: nil
        }
    }
}

extension AccountPages.Page.Passkey: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "createdISO": createdISO
        case "createdUTC": createdUTC
        case "authenticator": authenticator
        case "usedISO": usedISO
        case "usedUTC": usedUTC
        case "synced": synced
        case "flagged": flagged
        default: nil
        }
    }
}

extension AccountPages.Page.Event: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "text": text
        case "iso": iso
        case "utc": utc
        case "device": device
        default: nil
        }
    }
}

extension AccountPages.Page: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "name": name
        case "nameLength": nameLength
        case "email": email
        case "methods": methods
        case "hasPassword": hasPassword
        case "minimumLength": minimumLength
        case "passkeys": passkeys
        case "passkeyNameLength": passkeyNameLength
        case "sessions": sessions
        case "events": events
        case "twoStep": twoStep
        case "isOperator": isOperator
        default: nil
        }
    }
}

extension AccountPages.DeletePage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "name": name
        case "csrf": csrf
        default: nil
        }
    }
}

extension SecondFactorStatus: TemplateFields {
    public func child(named key: String) -> Any? {
        switch key {
        case "enabled": enabled
        case "pending": pending
        case "recoveryCodesLeft": recoveryCodesLeft
        case "enabledAt": enabledAt
        default: nil
        }
    }
}

extension AccountPages.PasskeyRemovalPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "id": id
        case "name": name
        case "authenticator": authenticator
        case "csrf": csrf
        default: nil
        }
    }
}

extension AccountPages.EmailPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "email": email
        default: nil
        }
    }
}
