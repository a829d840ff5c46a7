import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The journeys (docs/journeys.md) of an account with an authenticator app on the pages, and of the ways a
/// session shows again that it is its owner's: every way in on the pages asks for the app's code before any
/// session starts or anything changes, for the owner and for an operator, whose admin pages open only after
/// it; a remembered device skips the step of a sign-in that proved the address it is remembered for, never a
/// reset's, a sign-up's, Google's or a step-up's; a hand-off carries an app's session into a browser but not
/// its second factor; a passkeys-only account confirms it is you with its passkey. On every database, one
/// case at a time (`.serialized`), as `JourneyTests`.
@Suite(.serialized, .tags(.bothDatabases)) struct SecondFactorJourneyTests {
    typealias Way = JourneyTests.Way
    static let email = JourneyTests.email
    static let second = SecondFactorTests()

    /// Who holds the account: its owner, or an operator (whose admin pages take a second factor).
    enum Holder: String, CaseIterable, Sendable { case owner, `operator` }

    /// A way in on the pages, taken by a holder.
    struct Walk: Sendable, CustomTestStringConvertible {
        let way: Way
        let holder: Holder
        static let all = Way.onThePages.flatMap { way in Holder.allCases.map { Walk(way: way, holder: $0) } }
        var testDescription: String { "\(way.rawValue) by \(holder.rawValue)" }
    }

    /// An account every way in reaches (`JourneyTests.accountWithEveryWayIn`), with an app confirmed.
    static func accountWithAnApp(_ h: Harness, _ holder: Holder = .owner) async throws -> (JourneyTests.Account, TOTP) {
        let account = try await JourneyTests.accountWithEveryWayIn(h)
        let (totp, _) = try await second.enrol(h, account.session)
        if holder == .operator { try await h.services.admin.setAdmin(true, userID: account.id, by: .commandLine(login: "ops")) }
        return (account, totp)
    }

    /// Whether the answer sends the browser to the second step, with no session yet.
    static func asksForTheCode(_ answer: LiveResponse, _ browser: WebBrowser) -> Bool {
        answer.status == .seeOther && answer.headers[.location]?.hasPrefix(SecondFactorPages.path) == true
            && browser.cookies[SessionAuthenticator.cookieName] == nil
    }

    /// A passkey sign-up's options, refused on an account with a second factor: no passkey, no session.
    static func expectPasskeySignUpRefused(_ answer: LiveResponse, _ account: JourneyTests.Account, _ browser: WebBrowser) async throws {
        #expect(answer.status == .forbidden, "\(WebBrowser.text(answer).prefix(2000))")
        #expect(try browser.h.error(answer).code == .secondFactorRequired)
        #expect(try await browser.h.store.passkeys(of: account.id).count == 1, "no passkey was added")
        #expect(browser.cookies[SessionAuthenticator.cookieName] == nil)
    }

    /// The password a sign-up or reset set is the account's now: it passes the first factor.
    static func expectNewPassword(_ h: Harness) async throws {
        let signIn = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: JourneyTests.newPassword))
        #expect(try h.error(signIn).code == .secondFactorRequired, "the new password passes the first factor")
    }

    @Test(arguments: StoreBackend.available, Walk.all)
    func anAccountWithAnAppIsAskedForItsCodeOnThePagesByEveryWayIn(backend: StoreBackend, walk: Walk) async throws {
        let (way, holder) = (walk.way, walk.holder)
        try await JourneyTests.run(backend) { h in
            let (account, totp) = try await Self.accountWithAnApp(h, holder)
            let hash = try await h.store.passwordHash(userID: account.id)
            let sessions = try await h.store.sessions(of: account.id).count
            var browser = WebBrowser(h)
            let answer = try await JourneyTests.walk(way, &browser, passkey: account.passkey)
            switch way {
            case .passkeySignUp:
                return try await Self.expectPasskeySignUpRefused(answer, account, browser)
            case .passkeySignIn:
                // A passkey verifies its user: both factors at once.
                #expect(answer.status == .seeOther && answer.headers[.location] == "/", "\(WebBrowser.text(answer).prefix(2000))")
            default:
                #expect(Self.asksForTheCode(answer, browser), "\(answer.status) \(WebBrowser.text(answer).prefix(2000))")
                #expect(try await h.store.passwordHash(userID: account.id) == hash, "nothing changed before the code")
                #expect(try await browser.get("/admin").headers[.location] == "/auth?next=/admin", "no operator before the code")
                let done = try await browser.post(SecondFactorPages.path, [("code", Self.second.code(totp, h))])
                #expect(done.status == .seeOther && done.headers[.location] == "/", "\(WebBrowser.text(done).prefix(2000))")
            }
            #expect(WebBrowser.text(try await browser.get("/account")).contains(Self.email), "signed in")
            #expect(try await h.store.sessions(of: account.id).count == (way.setsPassword ? 1 : sessions + 1), "a reset ends the others")
            if way.setsPassword { try await Self.expectNewPassword(h) }
            let admin = try await browser.get("/admin")
            #expect(admin.status == (holder == .operator ? .ok : .forbidden), "\(WebBrowser.text(admin).prefix(2000))")
        }
    }

    @Test(arguments: StoreBackend.available, [Way.google, .emailCode, .passwordSignIn, .passwordSignUp, .passwordReset, .passkeySignUp])
    func aRememberedBrowserSkipsOnlyTheStepOfASignInThatProvedItsAddress(backend: StoreBackend, way: Way) async throws {
        try await JourneyTests.run(backend) { h in
            let (account, totp) = try await Self.accountWithAnApp(h, .operator)
            var browser = WebBrowser(h)
            try #require(Self.asksForTheCode(try await JourneyTests.walk(.emailCode, &browser, passkey: account.passkey), browser))
            _ = try await browser.post(SecondFactorPages.path, [("code", Self.second.code(totp, h)), ("remember", "on")])
            _ = try await browser.post("/account/signout", [("scope", "this")])
            try #require(browser.cookies[SessionAuthenticator.cookieName] == nil)

            let answer = try await JourneyTests.walk(way, &browser, passkey: account.passkey)
            switch way {
            case .passkeySignUp:
                return try await Self.expectPasskeySignUpRefused(answer, account, browser)
            case .emailCode, .passwordSignIn:
                #expect(answer.status == .seeOther && answer.headers[.location] == "/", "remembered: \(WebBrowser.text(answer).prefix(2000))")
            case .google, .passwordSignUp, .passwordReset:
                #expect(Self.asksForTheCode(answer, browser), "asked all the same: \(answer.status) \(WebBrowser.text(answer).prefix(2000))")
                _ = try await browser.post(SecondFactorPages.path, [("code", Self.second.code(totp, h))])
                if way.setsPassword { try await Self.expectNewPassword(h) }
            default:
                Issue.record("not walked: \(way)")
            }
            #expect(WebBrowser.text(try await browser.get("/account")).contains(Self.email), "signed in")
            let remembered = way == .emailCode || way == .passwordSignIn
            #expect(
                try await browser.get("/admin").headers[.location] == (remembered ? StepUpPages.path + "?next=%2Fadmin" : nil),
                "a remembered browser never passed a second factor in this session")

            let everywhere = try await browser.post("/account/signout", [("scope", "everywhere")])
            #expect(everywhere.headers[.location]?.hasPrefix(StepUpPages.path) == remembered, "remembered: a step-up asks for the code")
            if remembered {
                let done = try await browser.post(StepUpPages.path, [("code", Self.second.code(totp, h)), ("resume", "signout-everywhere")])
                #expect(done.headers[.location] == "/?notice=\(Notice.signedOutEverywhere.rawValue)")
            }
            #expect(try await h.store.sessions(of: account.id).isEmpty, "signed out everywhere")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aRememberedDeviceSkipsTheStepOfAnEmailedCodeForItsAddress(backend: StoreBackend) async throws {
        try await JourneyTests.run(backend) { h in
            let (account, totp) = try await Self.accountWithAnApp(h)
            let device = try #require(account.session.deviceToken)
            func byCode(_ device: String?) async throws -> LiveResponse {
                try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: Self.email, code: try await JourneyTests.freshCode(h), deviceToken: device))
            }
            let waiting = try #require(try h.error(try await byCode(device)).secondFactor, "asked until remembered")
            let passed = try await h.post(
                NativePath.secondStep, SecondStepRequest(token: waiting.token, code: Self.second.code(totp, h), deviceToken: device, rememberDevice: true))
            try #require(passed.status == .ok, "\(String(buffer: passed.body))")

            let again = try await byCode(device)
            #expect(again.status == .ok, "remembered: \(String(buffer: again.body))")
            let session = try h.decode(SessionResponse.self, again)
            let listed = try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: session.accessToken))
            #expect(listed.first { $0.current }?.secondFactor == SecondFactorKind.rememberedDevice.rawValue)
            #expect(try h.error(try await byCode(nil)).code == .secondFactorRequired, "a device without the token is asked")
        }
    }

    @Test(arguments: StoreBackend.available)
    func anAppHandsItsSessionToABrowserButNotItsSecondFactor(backend: StoreBackend) async throws {
        try await JourneyTests.run(backend) { h in
            let (account, totp) = try await Self.accountWithAnApp(h, .operator)
            let waiting = try await Self.second.firstFactor(h, Self.email)
            let passed = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: Self.second.code(totp, h)))
            let app = try h.decode(SessionResponse.self, passed)

            let made = try await h.post(NativePath.webSession, json: "", bearer: app.accessToken)
            #expect(made.status == .ok, "\(String(buffer: made.body))")
            var browser = WebBrowser(h)
            let opened = try await JourneyTests.open(try h.decode(WebSessionResponse.self, made), in: &browser)
            #expect(opened.status == .seeOther && opened.headers[.location]?.hasPrefix(SecondFactorPages.path) == false, "no code asked")
            #expect(WebBrowser.text(try await browser.get("/account")).contains(Self.email), "signed in")

            let admin = try await browser.get("/admin")
            #expect(admin.headers[.location] == StepUpPages.path + "?next=%2Fadmin", "the browser's own session passed no second factor")
            _ = try await browser.post(StepUpPages.path, [("code", Self.second.code(totp, h)), ("next", "/admin")])
            #expect(try await browser.get("/admin").status == .ok)
            #expect(try await h.store.sessions(of: account.id).count == 5, "the owner's, Google's, Apple's, the app's and the browser's")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aPasskeysOnlyAccountConfirmsItIsYouWithItsPasskey(backend: StoreBackend) async throws {
        try await JourneyTests.run(backend) { h in
            let account = try await JourneyTests.passkeysOnlyAccount(h)
            h.clock.advance(by: StepUp.window)
            let old = try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: account.session.accessToken)
            #expect(old.status == .forbidden, "\(String(buffer: old.body))")
            #expect(try h.error(old).code == .signInAgain)
            let again = try await PasskeyFlowTests.signIn(h, account.passkey)
            let fresh = try h.decode(SessionResponse.self, again)
            _ = try await PasskeyFlowTests.addPasskey(h, PasskeyFlowTests.authenticator(), bearer: fresh.accessToken)
            #expect(try await h.store.passkeys(of: account.id).count == 2, "a sign-in with the passkey was the proof")

            var browser = WebBrowser(h)
            #expect(try await PasskeyPagesTests.signIn(&browser, account.passkey).headers[.location] == "/")
            h.clock.advance(by: StepUp.window)
            let removed = Base64URL.encode(try #require(try await h.store.passkeys(of: account.id).last?.credentialID))
            let asked = try await browser.post("/account/passkeys/\(removed)/delete", [])
            #expect(asked.headers[.location] == StepUpPages.path + "?next=%2Faccount%2Fpasskeys%2F\(removed)%2Fremove", "back to the removal after")
            let page = WebBrowser.text(try await browser.get(StepUpPages.path + "?next=%2Faccount"))
            #expect(page.contains("Confirm with a passkey") && !page.contains(#"action="/account/verify""#), "no app: a passkey, or sign in again")
            let options = try h.decode(PasskeyRequestOptions.self, try await browser.postForJSON("/account/verify/passkey/options"))
            let confirmed = try await browser.post(
                "/account/verify/passkey",
                [("credential", try PasskeyPagesTests.credentialJSON(try account.passkey.authenticate(options))), ("next", "/account")])
            #expect(confirmed.headers[.location] == "/account", "\(WebBrowser.text(confirmed).prefix(2000))")
            #expect(try await browser.post("/account/passkeys/\(removed)/delete", []).headers[.location] == "/account?notice=passkey-removed")
            #expect(try await h.store.passkeys(of: account.id).count == 1)
        }
    }
}
