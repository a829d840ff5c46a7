import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// Passkeys on the pages. The browser's WebAuthn call sits between two requests, so each ceremony is a
/// pair: `chatter.js` posts the page's CSRF token for the options (JSON, since only script reads them),
/// then submits an ordinary form carrying the credential, whose answer is a redirect like every other
/// form's. Without JavaScript or WebAuthn the passkey buttons never appear; renaming and removing a
/// passkey are plain forms.
struct PasskeyPages {
    let passkeys: PasskeyService
    let auth: AuthPages
    let account: AccountPages
    let web: WebSessions

    /// `signedIn`: the pages' routes that need a session (`SignedInPagesMiddleware`).
    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(FormAction.passkeySignInOptions.route)) { request, context in try await signInOptions(request, context) }
        router.post(RouterPath(FormAction.passkeySignIn.route)) { request, context in try await signIn(request, context) }
        router.post(RouterPath(FormAction.passkeySignUpOptions.route)) { request, context in try await signUpOptions(request, context) }
        router.post(RouterPath(FormAction.passkeySignUp.route)) { request, context in try await signUp(request, context) }
        signedIn.post(RouterPath(FormAction.passkeyAddOptions.route)) { request, context in try await addOptions(request, context) }
        signedIn.post(RouterPath(FormAction.passkeyAdd.route)) { request, context in try await add(request, context) }
        signedIn.post(RouterPath(FormAction.passkeyRename.route)) { request, context in try await rename(request, context) }
        signedIn.post(RouterPath(FormAction.passkeyDelete.route)) { request, context in try await delete(request, context) }
    }

    /// The form a ceremony ends with: the credential as `PublicKeyCredential.toJSON()` writes it.
    struct CredentialForm: WebForm {
        let csrf: String
        let credential: String
        let next: String?

        func decoded<Credential: Decodable>(_ type: Credential.Type) throws -> Credential {
            try PasskeyPages.decodeCredential(type, from: credential)
        }
    }

    /// A credential as `PublicKeyCredential.toJSON()` writes it, from a form's field; a 400 for anything else.
    static func decodeCredential<Credential: Decodable>(_ type: Credential.Type, from field: String) throws -> Credential {
        // fail-closed: a credential that does not decode is refused with 400
        guard let credential = try? JSONDecoder().decode(Credential.self, from: Data(field.utf8)) else {
            throw APIError(.badRequest, .invalidForm, "The browser's passkey answer was incomplete; try again.")
        }
        return credential
    }

    // MARK: Signing in

    func signInOptions(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        _ = try await web.form(CSRFOnly.self, for: .passkeySignInOptions, request, context, visitor: visitor)
        return JSONResponse.make(try await passkeys.signInOptions(client: context.client(request)))
    }

    func signIn(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(CredentialForm.self, for: .passkeySignIn, request, context, visitor: visitor)
        let client = context.client(request)
        do {
            let credential = try form.decoded(AuthenticationResponseJSON.self)
            let user = try await passkeys.signIn(PasskeySignInRequest(credential: credential), client: client).user
            return try await web.signedIn(
                SignInFlow(user: user, method: .passkey, secondFactor: .passkey), client: client, next: form.next, replacing: visitor)
        } catch let error as any APIErrorConvertible {
            return auth.refuseSignIn(error.apiError, email: AuthPages.Identifier(request)?.email ?? "", next: form.next)
        }
    }

    // MARK: Signing up, after the emailed code

    struct SignUpOptionsForm: WebForm {
        let csrf: String
        let code: String
    }

    /// Redeems the code the sign-up page asked for (the address is the one waiting in the browser's
    /// pending cookie) and answers the options for the account's first passkey.
    func signUpOptions(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(SignUpOptionsForm.self, for: .passkeySignUpOptions, request, context, visitor: visitor)
        guard let pending = AuthPages.Pending(request), pending.purpose == .signup else {
            throw APIError(.badRequest, .invalidForm, "Start again: enter your email to get a new code.")
        }
        return JSONResponse.make(try await passkeys.signUpOptions(email: pending.email, code: form.code, client: context.client(request)))
    }

    func signUp(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let visitor = try context.requireVisitor()
        let form = try await web.form(CredentialForm.self, for: .passkeySignUp, request, context, visitor: visitor)
        // The pending cookie only says where to go next: the address is the one the code proved, kept with the challenge.
        let next = AuthPages.Pending(request)?.next
        let client = context.client(request)
        do {
            let credential = try form.decoded(RegistrationResponseJSON.self)
            let (user, email) = try await passkeys.signUp(PasskeyRegistrationRequest(credential: credential), client: client)
            return try await web.signedIn(
                SignInFlow(user: user, method: .passkey, email: email, device: request.cookie(WebVisitor.deviceCookieName), secondFactor: .passkey),
                client: client, next: next, replacing: visitor)
        } catch let error as any APIErrorConvertible {
            guard var pending = AuthPages.Pending(request) else {
                return auth.refuseSignIn(error.apiError, email: AuthPages.Identifier(request)?.email ?? "", next: nil)
            }
            pending = pending.settled
            pending.problem = error.apiError.body.message
            return AuthPages.showCode(pending)
        }
    }

    // MARK: The account's passkeys

    func addOptions(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        _ = try await web.form(CSRFOnly.self, for: .passkeyAddOptions, request, context, visitor: visitor)
        return JSONResponse.make(try await passkeys.registrationOptions(for: session, client: context.client(request)))
    }

    func add(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(CredentialForm.self, for: .passkeyAdd, request, context, visitor: visitor)
        do {
            let credential = try form.decoded(RegistrationResponseJSON.self)
            _ = try await passkeys.register(
                PasskeyRegistrationRequest(credential: credential), purpose: .register, user: session.user, client: context.client(request))
            return WebSessions.redirect(to: "/account?notice=\(Notice.passkeyAdded.rawValue)")
        } catch let error as any APIErrorConvertible {
            return AccountPages.refused(error.apiError)
        }
    }

    struct RenameForm: WebForm {
        let csrf: String
        let name: String
    }

    func rename(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        let form = try await web.form(RenameForm.self, for: .passkeyRename, request, context, visitor: visitor)
        do {
            _ = try await passkeys.rename(context.parameters.get("id") ?? "", to: form.name, user: session.user, client: context.client(request))
            return WebSessions.redirect(to: "/account?notice=\(Notice.passkeyRenamed.rawValue)")
        } catch let error as any APIErrorConvertible {
            return AccountPages.refused(error.apiError)
        }
    }

    func delete(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (visitor, session) = try context.requireSignedIn()
        _ = try await web.form(CSRFOnly.self, for: .passkeyDelete, request, context, visitor: visitor)
        do {
            try await passkeys.delete(context.parameters.get("id") ?? "", session: session, client: context.client(request))
            return WebSessions.redirect(to: "/account?notice=\(Notice.passkeyRemoved.rawValue)")
        } catch SecondFactorError.stepUpRequired, SecondFactorError.signInAgain {
            // Back to the removal's own page once confirmed: its token is rendered there only.
            let id = context.parameters.get("id").flatMap { Base64URL.decode($0) != nil && $0.utf8.count <= 1400 ? $0 : nil }
            return StepUpPages.ask(returningTo: id.map { "/account/passkeys/\($0)/remove" } ?? "/account")
        } catch let error as any APIErrorConvertible {
            return AccountPages.refused(error.apiError)
        }
    }
}
