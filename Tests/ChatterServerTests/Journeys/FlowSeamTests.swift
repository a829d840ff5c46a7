import ChatterTestSupport
import ChatterWire
import ExtrasBase64
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Where flows meet: state one flow leaves (a cookie, a waiting enrolment, options fetched earlier, a
/// session) that another must not trust. Each test walks one hole an outside review found, as a user or an
/// attacker would, and fails without its fix (docs/journeys.md, "Holes between flows").
@Suite(.tags(.bothDatabases)) struct FlowSeamTests {
    let second = SecondFactorTests()

    /// The pending cookie as a browser holds it, for `email`: unsigned, so anyone can write one.
    static func pendingCookie(_ email: String, _ h: Harness) throws -> String {
        let pending = AuthPages.Pending(email: email, purpose: .signup, sentAt: h.clock.now.timeIntervalSince1970, next: nil)
        return Base64.encodeToString(bytes: try JSONEncoder().encode(pending), options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    // MARK: A passkey sign-up's device token

    @Test(arguments: StoreBackend.available)
    func aPasskeySignUpGetsADeviceTokenOnlyForTheAddressItsCodeProved(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let victim = "victim@example.com"
            _ = try await second.signUp(h, victim)
            h.clock.advance(by: 61)

            var mallory = WebBrowser(h)
            _ = try await mallory.get("/auth/signup")
            #expect(try await mallory.post("/auth/code", [("purpose", "signup"), ("email", "mallory@example.com")]).status == .seeOther)
            let code = try #require(h.mail.lastCode(to: "mallory@example.com"))
            let options = try h.decode(
                PasskeyCreationOptions.self, try await mallory.postForJSON("/auth/passkey/signup/options", [("code", code)]))
            // Between the options and the credential, the browser's pending cookie is rewritten to name the victim.
            mallory.cookies[WebVisitor.pendingCookieName] = try Self.pendingCookie(victim, h)
            let credential = try PasskeyPagesTests.credentialJSON(try PasskeyFlowTests.authenticator().register(options))
            let done = try await mallory.post("/auth/passkey/signup", [("credential", credential)])
            #expect(done.status == .seeOther, "\(WebBrowser.text(done))")
            let device = try #require(mallory.cookies[WebVisitor.deviceCookieName], "the sign-up proved an address: its device token")
            #expect(try await h.services.devices.device(device, for: victim) == nil, "no device token for the address the cookie named")
            #expect(try await h.services.devices.device(device, for: "mallory@example.com") != nil, "the one for the address the code proved")

            // The native sign-up, which names no address at the end at all, gets the proved address's token too.
            h.clock.advance(by: 61)
            let patCode = try await h.requestCode("pat@example.com")
            let patOptions = try h.decode(
                PasskeyCreationOptions.self,
                try await h.post(NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: "pat@example.com", code: patCode)))
            let signedUp = try await h.post(
                NativePath.passkeySignUp, PasskeyRegistrationRequest(credential: try PasskeyFlowTests.authenticator().register(patOptions)))
            let token = try #require(try h.decode(SessionResponse.self, signedUp).deviceToken)
            #expect(try await h.services.devices.device(token, for: "pat@example.com") != nil)
        }
    }

    // MARK: Passkey sign-up options that outlive a second factor

    @Test(arguments: StoreBackend.available)
    func signUpOptionsFetchedBeforeTwoStepWasTurnedOnAddNoPasskeyAfterIt(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let email = "pat@example.com"
            let session = try await second.signUp(h, email)
            h.clock.advance(by: 61)
            let code = try await h.requestCode(email)
            let options = try h.decode(
                PasskeyCreationOptions.self, try await h.post(NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: email, code: code)))
            _ = try await second.enrol(h, session)

            let sessions = try await h.store.sessionCount()
            let late = try await h.post(
                NativePath.passkeySignUp, PasskeyRegistrationRequest(credential: try PasskeyFlowTests.authenticator().register(options)))
            #expect(late.status == .forbidden, "\(String(buffer: late.body))")
            #expect(try h.error(late).code == .secondFactorRequired)
            let userID = try #require(UUID(uuidString: session.user.id))
            #expect(try await h.store.passkeys(of: userID).isEmpty, "no passkey was added")
            #expect(try await h.store.sessionCount() == sessions, "and no session started")
        }
    }

    // MARK: An enrolment left half done

    @Test(arguments: StoreBackend.available)
    func anEnrolmentOneSessionBeganCannotBeReadOrConfirmedByAnother(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let owner = try await second.signUp(h)
            let enrolment = try h.decode(TOTPEnrolment.self, try await h.post(NativePath.secondFactorEnrol, json: "", bearer: owner.accessToken))
            let totp = TOTP(secret: try enrolment.secret.base32decoded())

            // Another session of the same account: a browser signed in later (by the emailed code, as a thief
            // with the mailbox would) reads nothing of the waiting secret on the setup page...
            h.clock.advance(by: 61)
            var thief = WebBrowser(h)
            #expect(try await thief.signInWithCode(SecondFactorTests.email).status == .seeOther)
            let setup = try await thief.get(SecondFactorAccountPages.setupPath)
            #expect(setup.status == .seeOther, "no waiting enrolment of its own to show")
            #expect(!WebBrowser.text(setup).contains(SecondFactorAccountPages.grouped(enrolment.secret)))
            // ...and a native session of the account, given the right code, cannot confirm it.
            let other = try h.decode(
                SessionResponse.self,
                try await h.post(
                    NativePath.passwordSignIn, PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password)))
            let stolen = try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: second.code(totp, h)), bearer: other.accessToken)
            #expect(stolen.status == .conflict, "\(String(buffer: stolen.body))")
            #expect(try h.error(stolen).code == .noSecondFactor)
            let userID = try #require(UUID(uuidString: owner.user.id))
            #expect(try await !h.store.hasSecondFactor(userID: userID))

            // The session that began it confirms it, and the account's sign-ins then open the confirmed secret.
            let confirmed = try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: second.code(totp, h)), bearer: owner.accessToken)
            #expect(confirmed.status == .ok, "\(String(buffer: confirmed.body))")
            let waiting = try await second.firstFactor(h)
            let completed = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: second.code(totp, h)))
            #expect(completed.status == .ok, "\(String(buffer: completed.body))")
        }
    }

    // MARK: A reset by emailed code on an account with a second factor

    @Test(arguments: StoreBackend.available)
    func aResetByEmailedCodeChangesNothingBeforeTheSecondFactor(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let email = SecondFactorTests.email
            let owner = try await second.signUp(h)
            let (totp, _) = try await second.enrol(h, owner)
            h.clock.advance(by: 61)
            let code = try await h.requestCode(email)
            let newPassword = "a brand new passphrase"
            let reset = try await h.post(NativePath.passwordReset, PasswordResetRequest(email: email, code: code, newPassword: newPassword))
            #expect(reset.status == .forbidden, "\(String(buffer: reset.body))")
            let body = try h.error(reset)
            #expect(body.code == .secondFactorRequired)
            let waiting = try #require(body.secondFactor)

            // Nothing changed: the owner's session lives, the old password still passes the first factor, the new one does not.
            #expect(try await h.get(NativePath.me, bearer: owner.accessToken).status == .ok, "no session ended on a mailbox alone")
            _ = try await second.firstFactor(h)
            let refused = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: newPassword))
            #expect(refused.status == .unauthorized)
            let userID = try #require(UUID(uuidString: owner.user.id))
            #expect(try await !h.store.auditEvents(userID: userID).contains { $0.event == AuditLog.Event.passwordReset.rawValue })

            // The second step completes the reset: the new password is set, every older session ends, the owner is told.
            let completed = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: second.code(totp, h)))
            #expect(completed.status == .ok, "\(String(buffer: completed.body))")
            #expect(try await h.get(NativePath.me, bearer: owner.accessToken).status == .unauthorized)
            let now = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: newPassword))
            #expect(now.status == .forbidden, "the new password passes the first factor")
            #expect(try h.error(now).code == .secondFactorRequired)
            #expect(h.mail.messages.contains { $0.subject == AccountNotice.passwordReset.subject && $0.to == email })
        }
    }

    @Test func aResetOnThePagesAsksForTheSecondFactorBeforeChangingAnything() async throws {
        try await Harness.run { h in
            let email = SecondFactorTests.email
            let owner = try await second.signUp(h)
            let (totp, _) = try await second.enrol(h, owner)
            h.clock.advance(by: 61)
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth/reset")
            #expect(try await browser.post("/auth/code", [("purpose", "reset"), ("email", email)]).status == .seeOther)
            let code = try #require(h.mail.lastCode(to: email))
            let asked = try await browser.post("/auth/code/verify", [("code", code), ("password", "a brand new passphrase")])
            #expect(asked.status == .seeOther && asked.headers[.location]?.hasPrefix(SecondFactorPages.path) == true, "\(WebBrowser.text(asked))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            #expect(try await h.get(NativePath.me, bearer: owner.accessToken).status == .ok, "nothing changed yet")

            let done = try await browser.post("/auth/second-factor", [("code", second.code(totp, h))])
            #expect(done.status == .seeOther && done.headers[.location] == "/", "\(WebBrowser.text(done))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] != nil)
            #expect(try await h.get(NativePath.me, bearer: owner.accessToken).status == .unauthorized, "the reset ended the older sessions")
        }
    }

    // MARK: The account's pages, signed out

    /// Every page of the account is behind one middleware: a signed-out browser is sent to sign in and back to
    /// the page it asked for (a form, to the account), and a script's JSON request gets 401, before any handler.
    @Test func aSignedOutBrowserIsSentToSignInAndBackToThePageItAskedFor() async throws {
        try await Harness.run { h in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            for page in ["/account", "/account/two-step", "/account/verify", "/account/delete"] {
                #expect(try await browser.get(page).headers[.location] == "/auth?next=\(page)", "\(page)")
            }
            let form = try await browser.post("/account/sessions/\(UUID().uuidString)/revoke", [])
            #expect(form.headers[.location] == "/auth?next=/account")
            #expect(try await browser.postForJSON("/account/verify/passkey/options").status == .unauthorized)
            #expect(try await browser.post("/account/signout", []).headers[.location] == "/", "signing out signed out is no error")
        }
    }

    // MARK: A first password added by a sign-up on the address

    @Test(arguments: StoreBackend.available)
    func aSignUpThatGivesAnAccountItsFirstPasswordTellsTheOwner(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let email = "pat@example.com"
            let verified = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: email, code: try await h.requestCode(email)))
            let first = try h.decode(SessionResponse.self, verified)
            h.clock.advance(by: 61)
            let signUp = try await h.post(
                NativePath.passwordSignUp, PasswordSignUpRequest(email: email, code: try await h.requestCode(email), password: "a lasting passphrase"))
            #expect(signUp.status == .ok)
            #expect(try h.decode(SessionResponse.self, signUp).user.id == first.user.id, "the same account")
            #expect(h.mail.messages.contains { $0.to == email && $0.subject == AccountNotice.passwordSet.subject }, "its owner is told")
            let history = try h.decode([AccountEvent].self, try await h.get(NativePath.accountHistory, bearer: first.accessToken))
            #expect(history.first?.kind == AuditLog.Event.passwordSet.rawValue)
            #expect(try await h.get(NativePath.me, bearer: first.accessToken).status == .ok, "nothing was replaced, so no session ended")

            // A sign-up that makes the account tells no one of its own password.
            h.clock.advance(by: 61)
            let fresh = try await h.post(
                NativePath.passwordSignUp,
                PasswordSignUpRequest(email: "new@example.com", code: try await h.requestCode("new@example.com"), password: "a lasting passphrase"))
            #expect(fresh.status == .ok)
            #expect(!h.mail.messages.contains { $0.to == "new@example.com" && $0.subject == AccountNotice.passwordSet.subject })
        }
    }

    // MARK: Adding a passkey from a stolen session

    @Test(arguments: StoreBackend.available)
    func addingOrRemovingAPasskeyTakesARecentSignInAndTellsTheOwner(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let email = SecondFactorTests.email
            let old = try await second.signUp(h)
            h.clock.advance(by: StepUp.window + 60)
            let stale = try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: old.accessToken)
            #expect(stale.status == .forbidden, "\(String(buffer: stale.body))")
            #expect(try h.error(stale).code == .signInAgain)

            let fresh = try h.decode(
                SessionResponse.self,
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: SecondFactorTests.password)))
            let info = try await PasskeyFlowTests.addPasskey(h, PasskeyFlowTests.authenticator(), bearer: fresh.accessToken, name: "Ada's phone")
            let added = try #require(h.mail.messages.last { $0.subject == AccountNotice.passkeyAdded(name: "").subject })
            #expect(added.to == email && added.body.contains("Ada's phone") && added.body.contains("From: an unnamed browser or app"))

            // The account's history lists it for its owner's apps; another account's lists none of it.
            let history = try h.decode([AccountEvent].self, try await h.get(NativePath.accountHistory, bearer: fresh.accessToken))
            #expect(
                history.first == AccountEvent(kind: "passkey_added", at: h.clock.now.timeIntervalSince1970, userAgent: Harness.userAgent, byOperator: false))
            let stranger = try await h.nativeSignIn(subject: "2000002")
            #expect(try h.decode([AccountEvent].self, try await h.get(NativePath.accountHistory, bearer: stranger.accessToken)).isEmpty)
            #expect(try await h.get(NativePath.accountHistory).status == .unauthorized)

            h.clock.advance(by: StepUp.window + 60)
            let removal = try await h.delete(NativePath.passkeys + "/" + info.id, bearer: fresh.accessToken)
            #expect(removal.status == .forbidden, "an old session removes none either")
            let userID = try #require(UUID(uuidString: old.user.id))
            #expect(try await h.store.passkeys(of: userID).count == 1)
        }
    }
}
