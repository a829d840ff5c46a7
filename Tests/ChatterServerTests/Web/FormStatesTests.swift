import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Every state a form can leave has a page with a way forward, and a form sent twice is the same request
/// (issue 44): the code step when the code expired, was typed wrong too often, was asked for twice or
/// could not be mailed; a chatt posted twice.
@Suite struct FormStatesTests {
    @Test func anExpiredCodeSaysSoAndOffersANewOne() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            _ = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "ada@example.com")])
            let code = try #require(h.mail.lastCode(to: "ada@example.com"))
            h.clock.advance(by: 601)
            let page = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(page.contains("That code has expired") && page.contains("data-code-closed"))
            #expect(!page.contains("action=\"/auth/code/verify\""), "no field for a code that cannot work")
            #expect(page.contains("Send a new code to ada@example.com") && !page.contains("class=\"secondary\" data-wait"), "the new code is the main button")
            #expect(try await browser.post("/auth/code/verify", [("code", code)]).status == .seeOther)
            #expect(WebBrowser.text(try await browser.get("/auth/code")).contains("That code has expired"), "the old code is refused, and the page says why")
            #expect(try await browser.post("/auth/code/resend", []).headers[.location] == "/auth/code")
            let fresh = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(fresh.contains("action=\"/auth/code/verify\"") && !fresh.contains("expired"), "a new code opens the step again")
            let done = try await browser.post("/auth/code/verify", [("code", try #require(h.mail.lastCode(to: "ada@example.com")))])
            #expect(done.status == .seeOther && done.headers[.location] == "/")
        }
    }

    @Test func fiveWrongTriesCloseTheCodeEvenToTheRightOne() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            _ = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "ada@example.com")])
            let code = try #require(h.mail.lastCode(to: "ada@example.com"))
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<4 { _ = try await browser.post("/auth/code/verify", [("code", wrong)]) }
            #expect(WebBrowser.text(try await browser.get("/auth/code")).contains("action=\"/auth/code/verify\""), "four wrong tries leave it open")
            _ = try await browser.post("/auth/code/verify", [("code", wrong)])
            let closed = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(closed.contains("typed wrong 5 times") && !closed.contains("action=\"/auth/code/verify\""))
            // The server refuses the right code now too (its guesses are spent); the page says why, not "wrong code".
            _ = try await browser.post("/auth/code/verify", [("code", code)])
            let after = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(after.contains("typed wrong 5 times") && !after.contains("not right"))
            #expect(try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: code)).status == .unauthorized)
            h.clock.advance(by: 61)
            _ = try await browser.post("/auth/code/resend", [])
            let fresh = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(fresh.contains("action=\"/auth/code/verify\""), "a new code starts the count again")
        }
    }

    @Test func askingTwiceForACodeLandsOnTheCodeStepWithTheFirstCode() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            let first = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "ada@example.com")])
            h.clock.advance(by: 1)
            // The second click of a double click: sent before the first answer set its cookie.
            browser.cookies[WebVisitor.pendingCookieName] = nil
            let second = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "ada@example.com")])
            #expect(first.headers[.location] == "/auth/code" && second.status == .seeOther && second.headers[.location] == "/auth/code")
            #expect(h.mail.count(to: "ada@example.com") == 1, "one code went out")
            let page = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(page.contains("A code went to this address moments ago") && page.contains("action=\"/auth/code/verify\""))
            #expect(page.contains("data-wait=\"59\""), "the countdown counts from the first code")
            let done = try await browser.post("/auth/code/verify", [("code", try #require(h.mail.lastCode(to: "ada@example.com")))])
            #expect(done.status == .seeOther && done.headers[.location] == "/")
        }
    }

    @Test func aMailServerThatDoesNotAnswerIsShownAsAFailure() async throws {
        let listener = try SilentListener(listening: false)
        defer { listener.close() }
        let transport = try SMTPMailFailureTests.transport(port: listener.port, group: .singleton)
        try await Harness.run(mailTransport: transport) { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            let sent = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "ada@example.com")])
            #expect(sent.headers[.location] == "/auth/code")
            let page = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(page.contains("We could not send the mail just now"))
            #expect(page.contains("role=\"alert\""), "shown as a refusal")
        }
    }

    @Test func aPostSentTwiceMakesOneChatt() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let page = WebBrowser.text(try await browser.get("/"))
            let key = try #require(page.firstMatch(of: /name="key" value="([A-Za-z0-9_-]+)"/)?.1)
            let again = WebBrowser.text(try await browser.get("/"))
            #expect(again.firstMatch(of: /name="key" value="([A-Za-z0-9_-]+)"/)?.1 != key, "each rendering has its own key")
            let before = try await h.store.chattCount()
            #expect(try await browser.post("/post", [("message", "once"), ("key", String(key))]).status == .seeOther)
            #expect(try await browser.post("/post", [("message", "once"), ("key", String(key))]).status == .seeOther, "the repeat answers as the first")
            let frozen = browser
            let answers = try await h.parallel(20) { _ in
                var copy = frozen
                return try await copy.post("/post", [("message", "once"), ("key", String(key))])
            }
            #expect(answers.count(.seeOther) == 20)
            #expect(try await h.store.chattCount() == before + 1, "one chatt however many times the form arrives")
            #expect(try await browser.post("/post", [("message", "twice")]).status == .seeOther)
            #expect(try await browser.post("/post", [("message", "twice")]).status == .seeOther)
            #expect(try await h.store.chattCount() == before + 3, "a form without a key posts each time, as before")
        }
    }

    @Test func aSecondStepLeftTooLongStartsTheSignInAgainSayingWhy() async throws {
        try await Harness.run { h async throws in
            var owner = WebBrowser(h)
            _ = try await owner.signInWithCode("ada@example.com")
            let (totp, _) = try await owner.enrolSecondFactor(h)
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").headers[.location] == SecondFactorPages.path)
            h.clock.advance(by: 301)
            let late = try await browser.post(SecondFactorPages.path, [("code", SecondFactorPagesTests.code(totp, h))])
            #expect(late.headers[.location] == "/auth" && WebBrowser.refusal(late)?.contains("expired") == true, "a way forward: sign in again")
            #expect(browser.cookies[SecondFactorPages.cookieName] == nil && browser.cookies[SessionAuthenticator.cookieName] == nil)
            #expect(WebBrowser.text(try await browser.get("/auth")).contains("has expired"), "the sign-in page says why")
        }
    }

    @Test func aKeyNamesOnlyItsAuthorsPost() {
        let ada = UUID()
        let grace = UUID()
        #expect(Timeline.chattID(forKey: "k", author: ada) == Timeline.chattID(forKey: "k", author: ada))
        #expect(Timeline.chattID(forKey: "k", author: ada) != Timeline.chattID(forKey: "k", author: grace))
        #expect(Timeline.chattID(forKey: "k", author: ada) != Timeline.chattID(forKey: "l", author: ada))
        #expect(Timeline.chattID(forKey: "k", author: ada).uuidString.dropFirst(14).first == "8", "a version-8 UUID")
    }
}
