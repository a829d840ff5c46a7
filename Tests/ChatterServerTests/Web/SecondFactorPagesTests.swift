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

extension WebBrowser {
    /// Turns two-step sign-in on from the account page (signed in already): the setup page's secret, its
    /// first code, and the recovery codes page. Returns the authenticator.
    mutating func enrolSecondFactor(_ h: Harness) async throws -> (TOTP, [String]) {
        #expect(try await post("/account/two-step/start", []).headers[.location] == SecondFactorAccountPages.setupPath)
        let setup = Self.text(try await get(SecondFactorAccountPages.setupPath))
        let secret = try #require(setup.firstMatch(of: /data-secret>([A-Z2-7 ]+)</)?.1).replacingOccurrences(of: " ", with: "")
        let totp = TOTP(secret: try secret.base32decoded())
        h.clock.advance(by: TOTP.period)
        let confirmed = try await post("/account/two-step/confirm", [("code", totp.code(step: TOTP.step(at: h.clock.now)))])
        #expect(confirmed.status == .seeOther && confirmed.headers[.location] == SecondFactorAccountPages.codesPath + "?notice=two-step-on")
        let codes = try await shownCodes()
        #expect(codes.count == 10)
        return (totp, codes)
    }

    /// The recovery codes page a confirmation redirected to (post/redirect/get): read once.
    mutating func shownCodes() async throws -> [String] {
        let page = try await get(SecondFactorAccountPages.codesPath)
        return Self.text(page).matches(of: /<li><code>([0-9A-Z]{5}-[0-9A-Z]{5})<\/code><\/li>/).map { String($0.1) }
    }
}

/// The second factor on the pages: enrolment with a QR code drawn by chatterd, the second step of a web
/// sign-in, recovery codes, step-up before what matters, and the operator rule.
@Suite struct SecondFactorPagesTests {
    static func code(_ totp: TOTP, _ h: Harness) -> String {
        h.clock.advance(by: TOTP.period)
        return totp.code(step: TOTP.step(at: h.clock.now))
    }

    @Test func enrolThenSignInWithACodeOnThePages() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            #expect(WebBrowser.text(try await browser.get("/account")).contains("Add an authenticator app"))
            #expect(try await browser.post("/account/two-step/start", [], csrf: "forged").status == .forbidden)
            #expect(try await browser.post("/account/two-step/start", []).status == .seeOther)
            let setup = try await browser.get(SecondFactorAccountPages.setupPath)
            let page = WebBrowser.text(setup)
            #expect(page.contains("src=\"data:image/svg+xml;base64,") && page.contains("otpauth://totp/Chatter:ada@example.com?secret="))
            #expect(setup.headers[.cacheControl]?.contains("no-store") == true, "the secret is never cached")
            let wrong = try await browser.post("/account/two-step/confirm", [("code", "000000")])
            #expect(wrong.headers[.location] == SecondFactorAccountPages.setupPath && WebBrowser.refusal(wrong)?.contains("not right") == true)
            #expect(WebBrowser.text(try await browser.get(SecondFactorAccountPages.setupPath)).contains("not right"), "said on the setup page")
            let (totp, codes) = try await browser.enrolSecondFactor(h)
            #expect(codes.count == 10)
            let account = WebBrowser.text(try await browser.get("/account"))
            #expect(
                account.contains("10 recovery codes left") && account.contains("(email + authenticator app)"), "the session that confirmed the app stepped up")

            var other = WebBrowser(h)
            let first = try await other.signInWithCode("ada@example.com", next: "/account")
            #expect(first.status == .seeOther)
            #expect(first.headers[.location] == SecondFactorPages.path + "?next=%2Faccount")
            #expect(other.cookies[SessionAuthenticator.cookieName] == nil, "no session before the second step")
            let ask = WebBrowser.text(try await other.get(SecondFactorPages.path + "?next=%2Faccount"))
            #expect(ask.contains("Two-step sign-in") && ask.contains("name=\"next\" value=\"/account\""))
            let refused = try await other.post(SecondFactorPages.path, [("code", "000000"), ("next", "/account")])
            #expect(refused.headers[.location] == SecondFactorPages.path + "?next=%2Faccount" && WebBrowser.refusal(refused)?.contains("not right") == true)
            #expect(WebBrowser.text(try await other.get(SecondFactorPages.path + "?next=%2Faccount")).contains("not right"), "said on the step")
            let done = try await other.post(SecondFactorPages.path, [("code", Self.code(totp, h)), ("next", "/account")])
            #expect(done.status == .seeOther && done.headers[.location] == "/account")
            #expect(other.cookies[SessionAuthenticator.cookieName] != nil)
            #expect(try await other.get("/account").status == .ok)
            let audit = try await h.store.auditEvents(userID: try #require(try await h.store.accounts(withEmail: "ada@example.com").first?.user.id))
            #expect(audit.last?.detail == "second factor: totp" && audit.last?.method == "email")

            var third = WebBrowser(h)
            _ = try await third.signInWithCode("ada@example.com")
            let recovered = try await third.post(SecondFactorPages.path, [("code", codes[0])])
            #expect(recovered.status == .seeOther)
            #expect(h.mail.messages.last?.subject == "A recovery code was used for your Chatter account")
        }
    }

    @Test func aBrowserThatTicksRememberSkipsTheStepNextTime() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let (totp, _) = try await browser.enrolSecondFactor(h)
            var other = WebBrowser(h)
            _ = try await other.signInWithCode("ada@example.com")
            #expect(WebBrowser.text(try await other.get(SecondFactorPages.path)).contains("Do not ask again on this browser for 30 days"))
            _ = try await other.post(SecondFactorPages.path, [("code", Self.code(totp, h)), ("remember", "on")])
            _ = try await other.post("/account/signout", [("scope", "this")])
            let again = try await other.signInWithCode("ada@example.com")
            #expect(again.status == .seeOther && again.headers[.location] == "/", "no second step for a remembered browser")
            var third = WebBrowser(h)
            let asked = try await third.signInWithCode("ada@example.com")
            #expect(asked.headers[.location] == SecondFactorPages.path, "a browser that did not tick it is asked")
        }
    }

    @Test func theSecondStepWithoutItsCookieOrWithAForeignNextGoesNowhere() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let (totp, _) = try await browser.enrolSecondFactor(h)
            var other = WebBrowser(h)
            #expect(try await other.get(SecondFactorPages.path).headers[.location] == "/auth", "no sign-in is waiting")
            _ = try await other.signInWithCode("ada@example.com", next: "//evil.example/")
            let done = try await other.post(SecondFactorPages.path, [("code", Self.code(totp, h)), ("next", "https://evil.example/")])
            #expect(done.status == .seeOther && done.headers[.location] == "/", "an open redirect is refused")
        }
    }

    @Test func deletingTheAccountAfterTenMinutesAsksForTheCodeFirst() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let (totp, _) = try await browser.enrolSecondFactor(h)
            #expect(try await browser.get("/account/delete").status == .ok, "confirming the app was a step-up")
            h.clock.advance(by: StepUp.window)
            let asked = try await browser.get("/account/delete")
            #expect(asked.status == .seeOther && asked.headers[.location] == StepUpPages.path + "?next=%2Faccount%2Fdelete")
            let everywhere = try await browser.post("/account/signout", [("scope", "everywhere")])
            #expect(everywhere.headers[.location] == StepUpPages.path + "?next=%2Faccount&resume=signout-everywhere")
            #expect(try await browser.get("/account").status == .ok, "still signed in")
            let page = WebBrowser.text(try await browser.get(StepUpPages.path + "?next=%2Faccount%2Fdelete"))
            #expect(page.contains("name=\"next\" value=\"/account/delete\""))
            let refused = try await browser.post(StepUpPages.path, [("code", "000000"), ("next", "/account/delete")])
            #expect(refused.headers[.location] == StepUpPages.path + "?next=%2Faccount%2Fdelete" && WebBrowser.refusal(refused)?.contains("not right") == true)
            let verified = try await browser.post(StepUpPages.path, [("code", Self.code(totp, h)), ("next", "/account/delete")])
            #expect(verified.headers[.location] == "/account/delete")
            #expect(try await browser.get("/account/delete").status == .ok)
            #expect(try await browser.post("/account/delete", [], csrf: browser.csrf(.deleteAccount)).status == .seeOther)
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// The step-up finishes what sent the browser there: "sign out everywhere" and "end that session" need
    /// no second click; a made-up `resume` finishes nothing.
    @Test func aStepUpFinishesTheActionThatAskedForIt() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let (totp, _) = try await browser.enrolSecondFactor(h)
            var other = WebBrowser(h)
            h.clock.advance(by: 61)
            _ = try await other.signInWithCode("ada@example.com")
            #expect(try await other.post(SecondFactorPages.path, [("code", Self.code(totp, h))]).status == .seeOther)
            h.clock.advance(by: StepUp.window)

            let userID = try #require(try await h.store.accounts(withEmail: "ada@example.com").first?.user.id)
            let otherSession = try #require(try await h.store.sessions(of: userID).last?.id)
            let revoke = try await browser.post("/account/sessions/\(otherSession.uuidString)/revoke", [])
            #expect(revoke.headers[.location] == StepUpPages.path + "?next=%2Faccount&resume=revoke%3A\(otherSession.uuidString)")
            let forged = try await browser.post(StepUpPages.path, [("code", Self.code(totp, h)), ("resume", "delete-everything")])
            #expect(forged.headers[.location] == "/account", "an unknown resume finishes nothing")
            h.clock.advance(by: StepUp.window)
            let resumed = try await browser.post(StepUpPages.path, [("code", Self.code(totp, h)), ("resume", "revoke:\(otherSession.uuidString)")])
            #expect(resumed.headers[.location] == "/account?notice=\(Notice.revoked.rawValue)")
            #expect(try await other.get("/account").status == .seeOther, "that session ended without a second click")

            h.clock.advance(by: StepUp.window)
            #expect(try await browser.post("/account/signout", [("scope", "everywhere")]).headers[.location]?.hasSuffix("resume=signout-everywhere") == true)
            let page = WebBrowser.text(try await browser.get(StepUpPages.path + "?next=%2Faccount&resume=signout-everywhere"))
            #expect(page.contains(HTMLText.escape(StepUpPages.Resume.signOutEverywhere.sentence)), "the page says what confirming will do")
            let everywhere = try await browser.post(StepUpPages.path, [("code", Self.code(totp, h)), ("resume", "signout-everywhere")])
            #expect(everywhere.headers[.location] == "/?notice=\(Notice.signedOutEverywhere.rawValue)")
            #expect(try await h.store.sessions(of: userID).isEmpty, "signed out everywhere")
        }
    }

    /// On an account without an app, a passkey confirms it is the owner: an old session removes a passkey
    /// after a step-up with another of its passkeys, without signing in again.
    @Test func aPasskeyConfirmsItIsYouOnAnAccountWithoutAnApp() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let keep = PasskeyFlowTests.authenticator()
            _ = try await PasskeyPagesTests.addPasskey(&browser, keep)
            _ = try await PasskeyPagesTests.addPasskey(&browser, PasskeyFlowTests.authenticator())
            let userID = try #require(try await h.store.accounts(withEmail: "ada@example.com").first?.user.id)
            let removed = Base64URL.encode(try #require(try await h.store.passkeys(of: userID).last?.credentialID))
            h.clock.advance(by: StepUp.window)

            let asked = try await browser.post("/account/passkeys/\(removed)/delete", [])
            let back = "/account/passkeys/\(removed)/remove"
            #expect(
                asked.headers[.location] == StepUpPages.path + "?next=" + back.replacingOccurrences(of: "/", with: "%2F"), "back to the removal's page after")
            let page = WebBrowser.text(try await browser.get(StepUpPages.path + "?next=%2Faccount"))
            #expect(page.contains("Confirm with a passkey") && !page.contains(#"action="/account/verify""#), "no app: a passkey, or sign in again")
            let options = try h.decode(PasskeyRequestOptions.self, try await browser.postForJSON("/account/verify/passkey/options"))
            #expect(options.allowCredentials.count == 2, "the account's own passkeys")
            let confirmed = try await browser.post(
                "/account/verify/passkey", [("credential", try PasskeyPagesTests.credentialJSON(try keep.authenticate(options))), ("next", back)])
            #expect(confirmed.headers[.location] == back, "\(WebBrowser.text(confirmed))")
            #expect(WebBrowser.text(try await browser.get(back)).contains("Remove the passkey"), "the interrupted removal's page, to finish it")
            #expect(try await browser.post("/account/passkeys/\(removed)/delete", []).headers[.location] == "/account?notice=passkey-removed")

            // Another account's passkey confirms nothing here.
            var mallory = WebBrowser(h)
            _ = try await mallory.signInWithCode("mallory@example.com")
            let malloryKey = PasskeyFlowTests.authenticator()
            _ = try await PasskeyPagesTests.addPasskey(&mallory, malloryKey)
            h.clock.advance(by: StepUp.window)
            let theirs = try h.decode(PasskeyRequestOptions.self, try await browser.postForJSON("/account/verify/passkey/options"))
            let foreign = try await browser.post(
                "/account/verify/passkey", [("credential", try PasskeyPagesTests.credentialJSON(try malloryKey.authenticate(theirs)))])
            #expect(foreign.status == .seeOther && WebBrowser.refusal(foreign) != nil && foreign.headers[.location]?.hasPrefix(StepUpPages.path) == true)
        }
    }

    @Test func newRecoveryCodesAndTurningOffOnThePages() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let (totp, old) = try await browser.enrolSecondFactor(h)
            let renewed = try await browser.post("/account/two-step/recovery-codes", [("code", Self.code(totp, h))])
            #expect(renewed.status == .seeOther && renewed.headers[.location] == SecondFactorAccountPages.codesPath + "?notice=new-recovery-codes")
            let cookie = try #require(browser.cookies[SecondFactorAccountPages.codesCookieName])
            #expect(!cookie.contains("-") || !old.contains { cookie.contains($0) }, "the cookie carries the codes sealed, not as text")
            let fresh = try await browser.shownCodes()
            #expect(fresh.count == 10 && Set(fresh).isDisjoint(with: old))
            // Shown once: a reload (or Back) shows no codes, says why, and offers new ones on the account page.
            let again = try await browser.get(SecondFactorAccountPages.codesPath)
            #expect(again.status == .seeOther && again.headers[.location] == "/account")
            #expect(WebBrowser.text(try await browser.get("/account")).contains("shown once, and these were shown already"))
            // The sealed cookie opens for no other session of the account, even copied into its browser.
            var other = WebBrowser(h)
            _ = try await other.signInWithCode("ada@example.com")
            _ = try await other.post(StepUpPages.path, [("code", Self.code(totp, h)), ("next", "/account")])
            other.cookies[SecondFactorAccountPages.codesCookieName] = cookie
            #expect(try await other.shownCodes().isEmpty, "another session cannot open this session's codes")
            let wrong = try await browser.post("/account/two-step/disable", [("code", old[0])])
            #expect(wrong.status == .seeOther && wrong.headers[.location] == "/account", "the old set ended")
            #expect(WebBrowser.text(try await browser.get("/account")).contains("not right"), "the account page says why")
            let off = try await browser.post("/account/two-step/disable", [("code", fresh[0])])
            #expect(off.headers[.location] == "/account?notice=two-step-off")
            #expect(WebBrowser.text(try await browser.get("/account")).contains("Add an authenticator app"))
        }
    }

    @Test func operatorsNeedASecondFactorAndAStepUpToChangeAnAccount() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("root@example.com")
            let operatorID = try #require(try await h.store.accounts(withEmail: "root@example.com").first?.user.id)
            try await h.services.admin.setAdmin(true, userID: operatorID, by: .commandLine(login: "test"))
            let refused = try await browser.get("/admin")
            #expect(refused.status == .forbidden && WebBrowser.text(refused).contains("two-step sign-in"))
            let member = try await h.nativeSignIn(subject: "member", name: "Member Mo", email: "mo@example.com")
            let memberID = try #require(UUID(uuidString: member.user.id))
            #expect(try await browser.post("/admin/users/\(memberID.uuidString)/disable", [], csrf: browser.csrf(.disableAccount)).status == .forbidden)

            let (totp, _) = try await browser.enrolSecondFactor(h)
            #expect(try await browser.get("/admin").status == .ok)
            h.clock.advance(by: StepUp.window)
            #expect(try await browser.get("/admin/users/\(memberID.uuidString)").status == .ok, "reading needs no step-up")
            let change = try await browser.post("/admin/users/\(memberID.uuidString)/disable", [], csrf: browser.csrf(.disableAccount))
            #expect(change.headers[.location] == StepUpPages.path + "?next=%2Fadmin%2Fusers%2F\(memberID.uuidString)")
            #expect(try await h.store.account(id: memberID)?.disabledAt == nil)
            _ = try await browser.post(StepUpPages.path, [("code", Self.code(totp, h)), ("next", "/admin/users/\(memberID.uuidString)")])
            #expect(try await browser.post("/admin/users/\(memberID.uuidString)/disable", [], csrf: browser.csrf(.disableAccount)).status == .seeOther)
            #expect(try await h.store.account(id: memberID)?.disabledAt != nil)
        }
    }

    @Test func anOperatorsBrowserThatNeverPassedTheSecondFactorIsAskedForItFirst() async throws {
        try await Harness.run { h async throws in
            var old = WebBrowser(h)
            _ = try await old.signInWithCode("root@example.com")
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("root@example.com")
            let operatorID = try #require(try await h.store.accounts(withEmail: "root@example.com").first?.user.id)
            try await h.services.admin.setAdmin(true, userID: operatorID, by: .commandLine(login: "test"))
            let (totp, _) = try await browser.enrolSecondFactor(h)
            #expect(try await browser.get("/admin").status == .ok)
            let asked = try await old.get("/admin")
            #expect(asked.headers[.location] == StepUpPages.path + "?next=%2Fadmin", "a cookie from before the app was added")
            _ = try await old.post(StepUpPages.path, [("code", Self.code(totp, h)), ("next", "/admin")])
            #expect(try await old.get("/admin").status == .ok)
            h.clock.advance(by: StepUp.window)
            #expect(try await old.get("/admin/audit").status == .ok, "reading needs a second factor once, not a recent one")
        }
    }

    /// The whole walk, with no dead end: "Confirm it is you" offers signing in again (the account has neither
    /// an app nor a passkey), which signs this browser out and comes back to the account, where the app is added.
    @Test func anOldBrowserSessionSignsInAgainBeforeAddingAnApp() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            h.clock.advance(by: StepUp.window)
            let start = try await browser.post("/account/two-step/start", [])
            #expect(start.headers[.location] == StepUpPages.path + "?next=%2Faccount&resume=add-authenticator")
            let page = WebBrowser.text(try await browser.get(StepUpPages.path + "?next=%2Faccount&resume=add-authenticator"))
            #expect(page.contains("you go on to add your authenticator app"), "the page says what confirming finishes")
            #expect(page.contains("Sign in again") && !page.contains(#"action="/account/verify""#) && !page.contains("Confirm with a passkey"))
            let again = try await browser.post("/account/signout", [("next", "/account")])
            #expect(again.headers[.location] == "/auth?next=%2Faccount")
            #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
            h.clock.advance(by: 61)
            #expect(try await browser.signInWithCode("ada@example.com", next: "/account").headers[.location] == "/account")
            #expect(try await browser.post("/account/two-step/start", []).headers[.location] == SecondFactorAccountPages.setupPath)
        }
    }

    /// "Add an authenticator app" from an old session: a passkey confirms it is you, and the setup follows at
    /// once, without clicking "Add" again (issue 44).
    @Test func aPasskeyStepUpGoesOnToAddTheApp() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let key = PasskeyFlowTests.authenticator()
            _ = try await PasskeyPagesTests.addPasskey(&browser, key)
            h.clock.advance(by: StepUp.window)
            let start = try await browser.post("/account/two-step/start", [])
            #expect(start.headers[.location] == StepUpPages.path + "?next=%2Faccount&resume=add-authenticator")
            let options = try h.decode(PasskeyRequestOptions.self, try await browser.postForJSON("/account/verify/passkey/options"))
            let confirmed = try await browser.post(
                "/account/verify/passkey",
                [("credential", try PasskeyPagesTests.credentialJSON(try key.authenticate(options))), ("next", "/account"), ("resume", "add-authenticator")])
            #expect(confirmed.headers[.location] == SecondFactorAccountPages.setupPath, "the interrupted action finished")
            #expect(WebBrowser.text(try await browser.get(SecondFactorAccountPages.setupPath)).contains("data-secret"))
        }
    }

    @Test func theSettingLetsOperatorsInWithoutOne() async throws {
        try await Harness.run(configure: { $0.adminRequiresSecondFactor = false }) { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("root@example.com")
            let operatorID = try #require(try await h.store.accounts(withEmail: "root@example.com").first?.user.id)
            try await h.services.admin.setAdmin(true, userID: operatorID, by: .commandLine(login: "test"))
            #expect(try await browser.get("/admin").status == .ok)
        }
    }
}
