import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The account page does what an account page does (issue 44): the name, a first password or a new one,
/// where each session signed in from, the recent security events; each refusal is said on the page it
/// redirects to, so Back never sends a form again.
@Suite struct AccountPagesTests {
    @Test func theNameChangesEverywhereAtOnceAndIsCleanedLikeEveryShownName() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let session = try await h.nativeSignIn(email: "ada@example.com")
            let renamed = try await browser.post("/account/name", [("name", "  Ada\u{202E} Lovelace  ")])
            #expect(renamed.status == .seeOther && renamed.headers[.location] == "/account?notice=renamed")
            let page = WebBrowser.text(try await browser.get("/account"))
            #expect(page.contains("value=\"Ada Lovelace\"") && page.contains(">Ada Lovelace</a>"), "the header says the new name at once")
            let me = try h.decode(UserProfile.self, try await h.get(NativePath.me, bearer: session.accessToken))
            #expect(me.displayName == "Ada Lovelace", "another session sees it too: the session cache was emptied")

            for (name, said) in [("   ", "cannot be empty"), (String(repeating: "n", count: Limits.nameCharacters + 1), "longer than")] {
                let refused = try await browser.post("/account/name", [("name", name)])
                #expect(refused.status == .seeOther && refused.headers[.location] == "/account")
                let shown = WebBrowser.text(try await browser.get("/account"))
                #expect(shown.contains(said) && shown.contains("role=\"alert\""), "\(said)")
                #expect(!WebBrowser.text(try await browser.get("/account")).contains(said), "said once")
            }
            #expect(try await h.store.user(id: UUID(uuidString: me.id)!)?.displayName == "Ada Lovelace", "refusals changed nothing")
            #expect(try await browser.post("/account/name", [("name", "x")], csrf: browser.csrf(.passwordAdd)).status == .forbidden)
        }
    }

    @Test func anAccountWithoutAPasswordAddsOneAfterARecentSignInAndTheOwnerIsTold() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let page = WebBrowser.text(try await browser.get("/account"))
            #expect(page.contains("action=\"/account/password/add\"") && !page.contains("action=\"/account/password/change\""))
            let weak = try await browser.post("/account/password/add", [("password", "password")])
            #expect(weak.headers[.location] == "/account")
            #expect(WebBrowser.text(try await browser.get("/account")).contains("common"))

            h.clock.advance(by: StepUp.window)
            let late = try await browser.post("/account/password/add", [("password", "a long and unusual phrase")])
            #expect(late.headers[.location]?.hasPrefix(StepUpPages.path) == true, "an old sign-in confirms it is you first")
            #expect(try await h.store.passwordHash(userID: try #require(try await h.store.accounts(withEmail: "ada@example.com").first?.user.id)) == nil)

            var fresh = WebBrowser(h)
            _ = try await fresh.signInWithCode("ada@example.com")
            let added = try await fresh.post("/account/password/add", [("password", "a long and unusual phrase")])
            #expect(added.headers[.location] == "/account?notice=password-added")
            #expect(h.mail.messages.contains { $0.to == "ada@example.com" && $0.subject.contains("A password was set") })
            let now = WebBrowser.text(try await fresh.get("/account"))
            #expect(now.contains("action=\"/account/password/change\"") && now.contains("A password was set"), "the form and the event list follow")
            let again = try await fresh.post("/account/password/add", [("password", "another long phrase here")])
            #expect(again.headers[.location] == "/account")
            #expect(WebBrowser.text(try await fresh.get("/account")).contains("has a password already"))
            var signIn = WebBrowser(h)
            _ = try await signIn.get("/auth")
            let signedIn = try await signIn.post("/auth/password", [("email", "ada@example.com"), ("password", "a long and unusual phrase")])
            #expect(signedIn.status == .seeOther, "the first password works, the refused second one never replaced it")
        }
    }

    @Test func twoFirstPasswordsAtOnceSetOne() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let frozen = browser
            let answers = try await h.parallel(8) { index in
                var copy = frozen
                return try await copy.post("/account/password/add", [("password", "racing phrase number \(index)")])
            }
            #expect(answers.filter { $0.headers[.location] == "/account?notice=password-added" }.count == 1, "one is set; the rest are told one exists")
            #expect(h.mail.messages.filter { $0.subject.contains("A password was set") }.count == 1)
        }
    }

    @Test func changingThePasswordTakesTheCurrentOneAndEndsTheOtherSessions() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth/signup")
            _ = try await browser.post("/auth/code", [("purpose", "signup"), ("email", "grace@example.com")])
            _ = try await browser.post(
                "/auth/code/verify", [("code", try #require(h.mail.lastCode(to: "grace@example.com"))), ("password", "a long and unusual phrase")])
            let phone = try await h.nativeSignIn(email: "grace@example.com")
            let wrong = try await browser.post("/account/password/change", [("current", "not it"), ("password", "a brand new phrase here")])
            #expect(wrong.headers[.location] == "/account")
            #expect(WebBrowser.text(try await browser.get("/account")).contains("current password is not right"))
            let changed = try await browser.post(
                "/account/password/change", [("current", "a long and unusual phrase"), ("password", "a brand new phrase here")])
            #expect(changed.headers[.location] == "/account?notice=password-changed")
            #expect(try await h.get(NativePath.me, bearer: phone.accessToken).status == .unauthorized, "the other session ended")
            #expect(try await browser.get("/account").status == .ok, "this one goes on")
        }
    }

    @Test func sessionsShowTheirNetworkNotTheirAddressAndTheEventsAreListed() async throws {
        #expect(ApproximateAddress.text("203.0.113.77") == "network 203.0.113.x")
        #expect(ApproximateAddress.text("2001:db8:1234:5678::1") == "network 2001:db8:1234::/48")
        #expect(ApproximateAddress.text("::ffff:198.51.100.9") == "network 198.51.100.x")
        #expect(ApproximateAddress.text("127.0.0.1") == "this computer" && ApproximateAddress.text("::1") == "this computer")
        #expect(ApproximateAddress.text("not an address") == nil && ApproximateAddress.text("<b>") == nil)
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let page = WebBrowser.text(try await browser.get("/account"))
            #expect(page.contains("From this computer"), "the loopback test client")
            #expect(page.contains("Recent security events") && page.contains("Nothing yet"))
            _ = try await browser.post("/account/password/add", [("password", "a long and unusual phrase")])
            #expect(WebBrowser.text(try await browser.get("/account")).contains("<strong>A password was set</strong>"))
        }
    }

    @Test func theEmailAddressChangesByACodeToTheNewOneAndTheOldOneIsTold() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            let adaID = try #require(try await h.store.accounts(withEmail: "ada@example.com").first?.user.id)
            let same = try await browser.post("/account/email", [("email", "ADA@example.com")])
            #expect(same.headers[.location] == "/account" && WebBrowser.refusal(same)?.contains("already") == true)
            let started = try await browser.post("/account/email", [("email", "Ada.New@Example.com")])
            #expect(started.headers[.location] == AccountPages.emailPath)
            #expect(WebBrowser.text(try await browser.get(AccountPages.emailPath)).contains("ada.new@example.com"))
            let code = try #require(h.mail.lastCode(to: "ada.new@example.com"))
            let wrong = try await browser.post("/account/email/confirm", [("code", code == "000000" ? "111111" : "000000")])
            #expect(wrong.headers[.location] == AccountPages.emailPath && WebBrowser.refusal(wrong)?.contains("wrong") == true)
            #expect(try await h.store.accounts(withEmail: "ada@example.com").first?.user.id == adaID, "nothing changed yet")
            let done = try await browser.post("/account/email/confirm", [("code", code)])
            #expect(done.headers[.location] == "/account?notice=email-changed")
            let told = h.mail.messages.filter { $0.subject == "The email address of your Chatter account was changed" }
            #expect(told.map(\.to).sorted() == ["ada.new@example.com", "ada@example.com"], "the old address and the new are told")
            #expect(told.allSatisfy { $0.body.contains("a***@example.com") && !$0.body.contains("ada.new@example.com") }, "the new address masked")
            let page = WebBrowser.text(try await browser.get("/account"))
            #expect(page.contains("ada.new@example.com") && page.contains("The email address was changed"))
            // The new address signs in to the account; the old one no longer reaches it.
            var fresh = WebBrowser(h)
            _ = try await fresh.signInWithCode("ada.new@example.com")
            #expect(try await h.store.accounts(withEmail: "ada.new@example.com").first?.user.id == adaID)
            #expect(try await h.store.linkedIdentity(.email("ada@example.com")) == nil)
        }
    }

    @Test func anAddressAnotherAccountHasIsRefusedAndAnOldSessionConfirmsItIsYouFirst() async throws {
        try await Harness.run { h async throws in
            var grace = WebBrowser(h)
            _ = try await grace.signInWithCode("grace@example.com")
            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("ada@example.com")
            _ = try await browser.post("/account/email", [("email", "grace@example.com")])
            let code = try #require(h.mail.lastCode(to: "grace@example.com"))
            let taken = try await browser.post("/account/email/confirm", [("code", code)])
            #expect(taken.headers[.location] == "/account" && WebBrowser.refusal(taken)?.contains("another Chatter account") == true)
            #expect(try await h.store.linkedIdentity(.email("ada@example.com")) != nil, "ada keeps her address")
            h.clock.advance(by: StepUp.window)
            let late = try await browser.post("/account/email", [("email", "ada.later@example.com")])
            #expect(late.headers[.location]?.hasPrefix(StepUpPages.path) == true, "an old session confirms it is you first")
            #expect(h.mail.count(to: "ada.later@example.com") == 0)
        }
    }
}
