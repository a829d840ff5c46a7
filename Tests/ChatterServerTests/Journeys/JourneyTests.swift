import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Every way into an account (docs/journeys.md), walked end to end on the native API and on the pages, on
/// every database, for three of the account states: disabled by an operator (each way is refused and starts
/// no session), deleted by its owner (each way is refused or makes a new, empty account), and passkeys only
/// (each way but a password reaches the same account).
/// Its cases run one at a time (`.serialized`): each starts a live chatterd, and a hundred at once would
/// crowd the timing-bound tests of a 2-core machine running the whole suite in parallel.
@Suite(.serialized, .tags(.bothDatabases)) struct JourneyTests {
    static let email = "ada@example.com"
    static let newPassword = "a brand new passphrase"
    static let googleSubject = "42"
    static let webClientID = "5678-web.apps.googleusercontent.com"

    /// A way into an account: its sign-in, or a sign-up or reset on the account's address.
    enum Way: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case google, apple, emailCode, passwordSignIn, passwordSignUp, passwordReset, passkeySignIn, passkeySignUp, course

        /// The ways the pages have: neither Apple nor the course API's `/adduser`.
        static let onThePages: [Way] = allCases.filter { $0 != .apple && $0 != .course }

        var testDescription: String { rawValue }

        /// What the way in comes to once the owner deleted the account: a refusal, or (nil) a new account.
        var afterDeletion: APIError? {
            switch self {
            case .passwordSignIn: SignInError.wrongCredentials.apiError
            case .passkeySignIn: PasskeyError.unknownPasskey.apiError
            default: nil
            }
        }

        /// Whether it leaves the account with `newPassword`.
        var setsPassword: Bool { self == .passwordSignUp || self == .passwordReset }
    }

    /// An account, the session it was made with, and its passkey.
    struct Account {
        let id: UUID
        let session: SessionResponse
        let passkey: SoftwareAuthenticator
    }

    static func run(_ backend: StoreBackend, _ body: @Sendable @escaping (Harness) async throws -> Void) async throws {
        try await Harness.run(backend: backend, configure: { $0.googleWebClientID = webClientID }, body)
    }

    /// An account every way in reaches: a password on `email`, Google and Apple identities that verified the same
    /// address (so they link to it), and a passkey.
    static func accountWithEveryWayIn(_ h: Harness) async throws -> Account {
        let owner = try await SecondFactorTests().signUp(h, email)
        let passkey = PasskeyFlowTests.authenticator()
        for way in [Way.google, .apple] {
            let linked = try await walk(way, h, passkey: passkey)
            try #require(linked.status == .ok, "\(String(buffer: linked.body))")
            try #require(try h.decode(SessionResponse.self, linked).user.id == owner.user.id, "\(way) links by the verified address")
        }
        _ = try await PasskeyFlowTests.addPasskey(h, passkey, bearer: owner.accessToken)
        return Account(id: try #require(UUID(uuidString: owner.user.id)), session: owner, passkey: passkey)
    }

    /// An account made by a passkey sign-up: its address and a passkey, nothing else.
    static func passkeysOnlyAccount(_ h: Harness) async throws -> Account {
        let code = try await h.requestCode(email)
        let options = try await h.post(NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: email, code: code))
        let passkey = PasskeyFlowTests.authenticator()
        let credential = try passkey.register(try h.decode(PasskeyCreationOptions.self, options))
        let signedUp = try await h.post(NativePath.passkeySignUp, PasskeyRegistrationRequest(credential: credential))
        try #require(signedUp.status == .ok, "\(String(buffer: signedUp.body))")
        let session = try h.decode(SessionResponse.self, signedUp)
        let id = try #require(UUID(uuidString: session.user.id))
        #expect(try await h.store.passwordHash(userID: id) == nil, "no password")
        #expect(try await h.store.identities(of: id).map(\.key) == [.email(email)], "no Google or Apple identity")
        return Account(id: id, session: session, passkey: passkey)
    }

    static func googleToken(_ h: Harness, audience: String = TestIssuer.clientID) throws -> String {
        var claims = TestIssuer.claims(subject: googleSubject, audience: audience, now: h.clock.now)
        claims["email"] = email
        return try h.issuer.sign(claims)
    }

    static func appleToken(_ h: Harness) throws -> String {
        let now = Int(h.clock.now.timeIntervalSince1970)
        return try h.appleIssuer.sign([
            "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "sub": "001.ada", "iat": now, "exp": now + 600,
            "email": email, "email_verified": "true",
        ])
    }

    /// A code for `email`, asked for once the last one's cooldown is over.
    static func freshCode(_ h: Harness) async throws -> String {
        h.clock.advance(by: 61)
        return try await h.requestCode(email)
    }

    /// Walks `way` into the account on `email` through the native API; its last answer. A passkey sign-up
    /// makes a new passkey; a password sign-up or reset sets `newPassword`.
    static func walk(_ way: Way, _ h: Harness, passkey: SoftwareAuthenticator) async throws -> LiveResponse {
        switch way {
        case .google:
            return try await h.post(NativePath.google, GoogleSignInRequest(idToken: try googleToken(h), clientID: TestIssuer.clientID))
        case .apple:
            return try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h), rawNonce: nil))
        case .course:
            return try await h.post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: try googleToken(h)))
        case .emailCode:
            return try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: email, code: try await freshCode(h)))
        case .passwordSignIn:
            return try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: SecondFactorTests.password))
        case .passwordSignUp:
            return try await h.post(
                NativePath.passwordSignUp, PasswordSignUpRequest(email: email, code: try await freshCode(h), password: newPassword))
        case .passwordReset:
            return try await h.post(
                NativePath.passwordReset, PasswordResetRequest(email: email, code: try await freshCode(h), newPassword: newPassword))
        case .passkeySignIn:
            return try await PasskeyFlowTests.signIn(h, passkey)
        case .passkeySignUp:
            let options = try await h.post(NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: email, code: try await freshCode(h)))
            guard options.status == .ok else { return options }
            let credential = try PasskeyFlowTests.authenticator().register(try h.decode(PasskeyCreationOptions.self, options))
            return try await h.post(NativePath.passkeySignUp, PasskeyRegistrationRequest(credential: credential))
        }
    }

    /// The code step's first half on the pages: the page for `purpose`, the address, the code it mailed.
    static func sendCode(_ browser: inout WebBrowser, _ purpose: AuthPages.Purpose) async throws -> String {
        browser.h.clock.advance(by: 61)
        _ = try await browser.get(purpose.start)
        let sent = try await browser.post("/auth/code", [("purpose", purpose.rawValue), ("email", email)])
        try #require(sent.status == .seeOther, "\(WebBrowser.text(sent))")
        return try #require(browser.h.mail.lastCode(to: email))
    }

    /// Walks `way` into the account on `email` on the pages, as `walk(_:_:passkey:)` does on the API.
    static func walk(_ way: Way, _ browser: inout WebBrowser, passkey: SoftwareAuthenticator) async throws -> LiveResponse {
        switch way {
        case .google:
            _ = try await browser.get("/auth")
            browser.cookies["g_csrf_token"] = "double-submit"
            let token = try googleToken(browser.h, audience: webClientID)
            return try await browser.postRaw("/auth/google", WebBrowser.encode([("credential", token), ("g_csrf_token", "double-submit")]))
        case .emailCode:
            let code = try await sendCode(&browser, .signin)
            return try await browser.post("/auth/code/verify", [("code", code)])
        case .passwordSignIn:
            _ = try await browser.get("/auth")
            return try await browser.post("/auth/password", [("email", email), ("password", SecondFactorTests.password), ("next", "")])
        case .passwordSignUp, .passwordReset:
            let code = try await sendCode(&browser, way == .passwordSignUp ? .signup : .reset)
            return try await browser.post("/auth/code/verify", [("code", code), ("password", newPassword)])
        case .passkeySignIn:
            return try await PasskeyPagesTests.signIn(&browser, passkey)
        case .passkeySignUp:
            let options = try await browser.postForJSON("/auth/passkey/signup/options", [("code", try await sendCode(&browser, .signup))])
            guard options.status == .ok else { return options }
            let credential = try PasskeyFlowTests.authenticator().register(try browser.h.decode(PasskeyCreationOptions.self, options))
            return try await browser.post("/auth/passkey/signup", [("credential", try PasskeyPagesTests.credentialJSON(credential))])
        case .apple, .course:
            throw Failure.notOnThePages(way)
        }
    }

    enum Failure: Error { case notOnThePages(Way) }

    /// Whether a page answers `refusal`: its status, and its message as the page escapes it.
    /// The page says `refusal`: an error page, or (post/redirect/get) a redirect whose page will say it (`WebFlash`).
    static func page(_ answer: LiveResponse, shows refusal: APIError) -> Bool {
        if answer.status == .seeOther { return WebBrowser.refusal(answer) == refusal.body.message }
        return answer.status == refusal.status && WebBrowser.text(answer).contains(HTMLText.escape(refusal.body.message))
    }

    // MARK: Disabled

    /// A refused sign-up adds no passkey: a passkey sign-up on a disabled account's address, with its emailed
    /// code, once kept its passkey, which signed in when the account was enabled again.
    static func expectNoPasskeyAdded(to account: Account, by way: Way, _ h: Harness) async throws {
        #expect(try await h.store.passkeys(of: account.id).count == 1, "no passkey was added (\(way))")
    }

    @Test(arguments: StoreBackend.available, Way.allCases)
    func aDisabledAccountIsRefusedByEveryWayIn(backend: StoreBackend, way: Way) async throws {
        try await Self.run(backend) { h in
            let account = try await Self.accountWithEveryWayIn(h)
            try await h.services.admin.setDisabled(true, userID: account.id, by: .commandLine(login: "ops"))
            let before = try await h.counts()
            let hash = try await h.store.passwordHash(userID: account.id)

            let answer = try await Self.walk(way, h, passkey: account.passkey)
            #expect(answer.status == .forbidden, "\(String(buffer: answer.body))")
            #expect(try h.error(answer).code == .accountDisabled)
            #expect(try await h.counts() == before, "no session, and no other account")
            #expect(try await h.store.passwordHash(userID: account.id) == hash, "the password is unchanged")
            try await Self.expectNoPasskeyAdded(to: account, by: way, h)
        }
    }

    @Test(arguments: StoreBackend.available, Way.onThePages)
    func aDisabledAccountIsRefusedOnThePages(backend: StoreBackend, way: Way) async throws {
        try await Self.run(backend) { h in
            let account = try await Self.accountWithEveryWayIn(h)
            try await h.services.admin.setDisabled(true, userID: account.id, by: .commandLine(login: "ops"))
            let before = try await h.counts()

            var browser = WebBrowser(h)
            let answer = try await Self.walk(way, &browser, passkey: account.passkey)
            if way == .passkeySignUp {
                // Refused at its options, which the page's script asks for as JSON and shows the message of.
                #expect(answer.status == .forbidden, "\(WebBrowser.text(answer).prefix(2000))")
                #expect(try h.error(answer).code == .accountDisabled)
            } else {
                #expect(Self.page(answer, shows: APIError.accountDisabled), "\(answer.status) \(WebBrowser.text(answer).prefix(2000))")
            }
            #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            #expect(try await h.counts() == before, "no session, and no other account")
            try await Self.expectNoPasskeyAdded(to: account, by: way, h)
        }
    }

    // MARK: Deleted

    /// After the deletion and `way`: no account when `way.afterDeletion` refused it, else one new, empty account;
    /// either way the old account's password, passkey and session open nothing.
    static func expectNothingOld(of old: Account, after way: Way, _ h: Harness) async throws {
        if way.afterDeletion != nil {
            #expect(try await h.counts() == [0, 0, 0], "no account, no session, no chatt")
        } else {
            let now = try await h.store.accounts(withEmail: email).map(\.user.id)
            #expect(now.count == 1 && now.first != old.id, "a new account: \(now) after \(old.id)")
            #expect(try await h.store.chattCount() == 0, "the old chatts went with the old account")
            let new = try #require(now.first)
            #expect(try await h.store.sessions(of: new).count == 1, "only the session just started")
            #expect(try await h.store.passkeys(of: new).count == (way == .passkeySignUp ? 1 : 0))
            #expect(try await h.store.passwordHash(userID: new) == nil || way.setsPassword)
        }
        let password = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: SecondFactorTests.password))
        #expect(try h.error(password).code == .invalidCredentials, "the old password opens nothing")
        #expect(try h.error(try await PasskeyFlowTests.signIn(h, old.passkey)).code == .unknownPasskey, "nor does the old passkey")
        #expect(try await h.get(NativePath.me, bearer: old.session.accessToken).status == .unauthorized)
    }

    @Test(arguments: StoreBackend.available, Way.allCases)
    func aDeletedAccountsWaysInLeadNowhereOld(backend: StoreBackend, way: Way) async throws {
        try await Self.run(backend) { h in
            let old = try await Self.accountWithEveryWayIn(h)
            _ = try await h.post(NativePath.chatts, NewChattRequest(message: "soon gone"), bearer: old.session.accessToken)
            try #require(try await h.store.chattCount() == 1)
            let deleted = try await h.delete(NativePath.me, bearer: old.session.accessToken)
            try #require(deleted.status == .noContent, "\(String(buffer: deleted.body))")

            let answer = try await Self.walk(way, h, passkey: old.passkey)
            if let refusal = way.afterDeletion {
                #expect(answer.status == refusal.status, "\(String(buffer: answer.body))")
                #expect(try h.error(answer).error == refusal.body.error)
            } else {
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            }
            try await Self.expectNothingOld(of: old, after: way, h)
        }
    }

    @Test(arguments: StoreBackend.available, Way.onThePages)
    func aDeletedAccountsWaysInOnThePagesLeadNowhereOld(backend: StoreBackend, way: Way) async throws {
        try await Self.run(backend) { h in
            let old = try await Self.accountWithEveryWayIn(h)
            var browser = WebBrowser(h)
            #expect(try await Self.walk(.passwordSignIn, &browser, passkey: old.passkey).status == .seeOther)
            #expect(try await browser.post("/post", [("message", "soon gone")]).status == .seeOther)
            let deleted = try await browser.post("/account/delete", [])
            try #require(deleted.status == .seeOther && deleted.headers[.location] == "/?notice=deleted")

            let answer = try await Self.walk(way, &browser, passkey: old.passkey)
            if let refusal = way.afterDeletion {
                #expect(Self.page(answer, shows: refusal), "\(answer.status) \(WebBrowser.text(answer).prefix(2000))")
                #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            } else {
                #expect(answer.status == .seeOther && answer.headers[.location] == "/", "\(WebBrowser.text(answer).prefix(2000))")
                #expect(browser.cookies[SessionAuthenticator.cookieName] != nil)
            }
            try await Self.expectNothingOld(of: old, after: way, h)
        }
    }

    // MARK: Passkeys only

    /// After `way` signed in: the passkey account is the only one, with a second passkey after a passkey
    /// sign-up, and its first password after a password sign-up or reset (none otherwise).
    static func expectTheSameAccount(_ account: Account, after way: Way, _ h: Harness) async throws {
        #expect(try await h.store.accounts(withEmail: email).map(\.user.id) == [account.id], "the same account")
        #expect(try await h.store.userCount() == 1)
        #expect(try await h.store.passkeys(of: account.id).count == (way == .passkeySignUp ? 2 : 1))
        let password = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: newPassword))
        if way.setsPassword {
            #expect(password.status == .ok, "the first password: \(String(buffer: password.body))")
            #expect(UUID(uuidString: try h.decode(SessionResponse.self, password).user.id) == account.id)
        } else {
            #expect(try h.error(password).code == .invalidCredentials, "still no password")
        }
    }

    @Test(arguments: StoreBackend.available, Way.allCases)
    func aPasskeysOnlyAccountIsReachedByEveryWayButAPassword(backend: StoreBackend, way: Way) async throws {
        try await Self.run(backend) { h in
            let account = try await Self.passkeysOnlyAccount(h)
            let answer = try await Self.walk(way, h, passkey: account.passkey)
            if way == .passwordSignIn {
                let stranger = try await h.post(
                    NativePath.passwordSignIn, PasswordSignInRequest(email: "nobody@example.com", password: SecondFactorTests.password))
                #expect(answer.status == .unauthorized)
                #expect(try h.error(answer) == h.error(stranger), "refused as an address with no account is")
                #expect(try await h.store.sessionCount() == 1)
            } else {
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                try await Self.expectTheSameAccount(account, after: way, h)
            }
        }
    }

    @Test(arguments: StoreBackend.available, Way.onThePages)
    func aPasskeysOnlyAccountIsReachedOnThePagesByEveryWayButAPassword(backend: StoreBackend, way: Way) async throws {
        try await Self.run(backend) { h in
            let account = try await Self.passkeysOnlyAccount(h)
            var browser = WebBrowser(h)
            let answer = try await Self.walk(way, &browser, passkey: account.passkey)
            if way == .passwordSignIn {
                #expect(Self.page(answer, shows: SignInError.wrongCredentials.apiError), "\(answer.status) \(WebBrowser.text(answer).prefix(2000))")
                #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            } else {
                #expect(answer.status == .seeOther && answer.headers[.location] == "/", "\(WebBrowser.text(answer).prefix(2000))")
                #expect(WebBrowser.text(try await browser.get("/account")).contains(Self.email), "signed in")
                try await Self.expectTheSameAccount(account, after: way, h)
            }
        }
    }

    // MARK: Hand-off and second step

    /// Opens a hand-off link as the app's own web view does.
    static func open(_ link: WebSessionResponse, in browser: inout WebBrowser) async throws -> LiveResponse {
        try await browser.get(link.url, extra: [WebSessionRoutes.appHeader: WebSessionResponse.appHeaderValue])
    }

    @Test(arguments: StoreBackend.available)
    func aPasskeysOnlyAccountsAppHandsItsSessionToABrowser(backend: StoreBackend) async throws {
        try await Self.run(backend) { h in
            let account = try await Self.passkeysOnlyAccount(h)
            let link = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: account.session.accessToken))
            var browser = WebBrowser(h)
            let opened = try await Self.open(link, in: &browser)
            #expect(opened.status == .seeOther, "\(WebBrowser.text(opened).prefix(2000))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] != nil)
            #expect(WebBrowser.text(try await browser.get("/account")).contains(Self.email))
            #expect(try await h.store.sessions(of: account.id).count == 2, "the app's session and the browser's, of the one account")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aHandOffMadeBeforeTheAccountWasDisabledSignsNoBrowserIn(backend: StoreBackend) async throws {
        try await Self.run(backend) { h in
            let account = try await Self.accountWithEveryWayIn(h)
            let link = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: account.session.accessToken))
            try await h.services.admin.setDisabled(true, userID: account.id, by: .commandLine(login: "ops"))

            let again = try await h.post(NativePath.webSession, json: "", bearer: account.session.accessToken)
            #expect(again.status == .unauthorized, "the app's session ended with the disabling: \(String(buffer: again.body))")
            var browser = WebBrowser(h)
            let opened = try await Self.open(link, in: &browser)
            #expect(Self.page(opened, shows: SessionError.invalidHandoff.apiError), "\(opened.status) \(WebBrowser.text(opened).prefix(2000))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            #expect(try await h.store.sessionCount() == 0)
        }
    }

    /// What ends an account while one of its sign-ins waits for the second step.
    enum Ending: String, CaseIterable, Sendable { case disabled, deleted }

    /// Disabling or deleting the account ends its waiting sign-ins: the right code finds nothing left to
    /// complete, on the API and the pages, and no session starts.
    @Test(arguments: StoreBackend.available, Ending.allCases)
    func aSecondStepWaitingWhenTheAccountEndsStartsNoSession(backend: StoreBackend, ending: Ending) async throws {
        try await Self.run(backend) { h in
            let second = SecondFactorTests()
            let owner = try await second.signUp(h, Self.email)
            let (totp, _) = try await second.enrol(h, owner)
            let waiting = try await second.firstFactor(h, Self.email)
            var browser = WebBrowser(h)
            let asked = try await Self.walk(.passwordSignIn, &browser, passkey: PasskeyFlowTests.authenticator())
            #expect(asked.headers[.location]?.hasPrefix(SecondFactorPages.path) == true, "\(WebBrowser.text(asked).prefix(2000))")
            switch ending {
            case .disabled:
                try await h.services.admin.setDisabled(true, userID: try #require(UUID(uuidString: owner.user.id)), by: .commandLine(login: "ops"))
            case .deleted:
                // Confirming the app was a step-up: the owner deletes the account at once.
                #expect(try await h.delete(NativePath.me, bearer: owner.accessToken).status == .noContent)
            }

            let expired = SecondFactorError.stepExpired.apiError
            let native = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: second.code(totp, h)))
            #expect(native.status == expired.status, "\(String(buffer: native.body))")
            #expect(try h.error(native).error == expired.body.error)
            let page = try await browser.post("/auth/second-factor", [("code", second.code(totp, h))])
            #expect(Self.page(page, shows: expired), "\(page.status) \(WebBrowser.text(page).prefix(2000))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            #expect(try await h.store.sessionCount() == 0)
            #expect(try await h.store.userCount() == (ending == .deleted ? 0 : 1), "no account came back")
        }
    }

    /// A passkey verifies its user: two factors by itself, so an account with an app is not asked for its code.
    @Test(arguments: StoreBackend.available)
    func aPasskeySignsInAnAccountWithAnAppWithoutAskingForItsCode(backend: StoreBackend) async throws {
        try await Self.run(backend) { h in
            let second = SecondFactorTests()
            let owner = try await second.signUp(h, Self.email)
            _ = try await second.enrol(h, owner)
            let passkey = PasskeyFlowTests.authenticator()
            _ = try await PasskeyFlowTests.addPasskey(h, passkey, bearer: owner.accessToken)

            let native = try await PasskeyFlowTests.signIn(h, passkey)
            #expect(native.status == .ok, "\(String(buffer: native.body))")
            let session = try h.decode(SessionResponse.self, native)
            #expect(session.user.id == owner.user.id)
            let listed = try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: session.accessToken))
            #expect(listed.first { $0.current }?.secondFactor == SecondFactorKind.passkey.rawValue)

            var browser = WebBrowser(h)
            let page = try await PasskeyPagesTests.signIn(&browser, passkey, next: "/account")
            #expect(page.status == .seeOther && page.headers[.location] == "/account", "no second-step page: \(WebBrowser.text(page).prefix(2000))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] != nil)
        }
    }
}
