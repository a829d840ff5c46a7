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

/// The web app's pages and forms against a live chatterd: the headers every page carries, CSRF on every
/// form, escaping, and the flows a browser walks through (the browser itself is in Tests/Browser).
@Suite struct WebPagesTests {
    @Test func pagesCarryTheSecurityHeadersAndAHardenedBrowserCookie() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            for path in ["/", "/auth", "/auth/signup", "/auth/reset"] {
                let page = try await browser.get(path)
                #expect(page.status == .ok, "\(path)")
                let policy = try #require(page.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(path): \(policy)")
                #expect(policy.contains("frame-ancestors 'none'") && policy.contains("form-action 'self'"))
                #expect(page.headers[.xFrameOptions] == "DENY")
                #expect(page.headers[.referrerPolicy] == "same-origin")
                #expect(page.headers[.xContentTypeOptions] == "nosniff")
                #expect(page.headers[.cacheControl] == "no-store")
                #expect(!WebBrowser.text(page).contains("<script>"), "\(path) has no inline script")
            }
            var newcomer = WebBrowser(h)
            let fresh = try await newcomer.get("/")
            let cookie = try #require(fresh.headers[values: .setCookie].first { $0.hasPrefix(WebVisitor.browserCookieName + "=") })
            for attribute in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"] { #expect(cookie.contains(attribute)) }
            #expect(!cookie.contains("Domain="))
            let css = try await browser.get("/static/chatter.css")
            #expect(css.status == .ok && css.headers[.contentType] == "text/css; charset=utf-8")
        }
    }

    /// Threat model, Operations: `/static/:file` looks the name up in the table loaded at start, so no
    /// spelling of a path outside it (encoded dots and slashes, a NUL, a case change, a template) opens a file.
    @Test func staticFilesComeOnlyFromTheTableLoadedAtStart() async throws {
        try await Harness.run { h async throws in
            #expect(try await h.get("/static/chatter.css").status == .ok)
            for path in [
                "/static/..%2F..%2FPackage.swift", "/static/%2e%2e%2fPackage.swift", "/static/..%5C..%5CPackage.swift", "/static/../../Package.swift",
                "/static/chatter.css%00.png", "/static/CHATTER.CSS", "/static/chatter.css%2F", "/static/%2Fetc%2Fpasswd", "/static/account.mustache",
                "/static/templates%2Flayout.mustache", "/static/", "/static/.",
            ] {
                let response = try await h.get(path)
                #expect(response.status == .notFound, "\(path): \(response.status)")
                #expect(!String(buffer: response.body).contains("swift-tools-version") && !String(buffer: response.body).contains("{{"), "\(path)")
            }
        }
    }

    /// Threat model, Web pages: `?notice=` names one of a closed set of notices; any other text shows nothing,
    /// on the timeline and on the account page alike.
    @Test func aLinkCannotPutWordsOnAPage() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            for page in ["/", "/account"] {
                let known = WebBrowser.text(try await browser.get("\(page)?notice=\(Notice.revoked.rawValue)"))
                #expect(known.contains(Notice.revoked.text), "\(page) shows a notice of the set")
                for words in ["Your%20account%20is%20locked.%20Call%20555-0100", "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "revoked%20", "REVOKED", "text"] {
                    let html = WebBrowser.text(try await browser.get("\(page)?notice=\(words)"))
                    #expect(!html.contains("class=\"notice\""), "\(page): \(words)")
                    #expect(!html.contains("555-0100") && !html.contains("<script>alert"), "\(page): \(words)")
                }
            }
        }
    }

    @Test func anOperatorMayLetAnAppsOriginFrameThePages() async throws {
        try await Harness.run(configure: { $0.webFrameAncestors = ["https://app.example.com"] }) { h async throws in
            var browser = WebBrowser(h)
            let page = try await browser.get("/")
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors https://app.example.com") == true)
            #expect(page.headers[.xFrameOptions] == nil)
        }
        var config = ServerConfiguration()
        config.webFrameAncestors = ["https://app.example.com; script-src *"]
        #expect(throws: ConfigurationError.self) { try config.validate() }
    }

    @Test func theTimelineIsReadableSignedOutAndEscapesWhatPeopleWrite() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            let hostile = #"<script>alert("x")</script><img src=x onerror=alert(1)> & 'quotes'"#
            #expect(try await h.post(NativePath.chatts, NewChattRequest(message: hostile), bearer: session.accessToken).status == .created)
            var browser = WebBrowser(h)
            let html = WebBrowser.text(try await browser.get("/"))
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;quotes&#39;"))
            #expect(!html.contains("<script>alert") && !html.contains("<img src=x"))
            #expect(!html.contains("name=\"message\""), "no post form signed out")
            #expect(html.contains("Ada Lovelace"))
        }
    }

    /// The newest chatts' list is rendered once and kept: every post, and every deletion, shows at once.
    @Test func theKeptListOfNewestChattsFollowsEveryPostAndDeletion() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(WebBrowser.text(try await browser.get("/")).contains("No chatts yet."))
            let ada = try await h.nativeSignIn()
            for index in 0..<3 {
                h.clock.advance(by: 1)
                _ = try await h.post(NativePath.chatts, NewChattRequest(message: "kept \(index)."), bearer: ada.accessToken)
                let page = WebBrowser.text(try await browser.get("/"))
                #expect((0...index).allSatisfy { page.contains("kept \($0).") }, "post \(index) missing")
                #expect(!page.contains("<!--chatts-->"), "the slot is filled")
                #expect(page.components(separatedBy: "<li class=\"chatt\">").count == index + 2)
            }
            let again = WebBrowser.text(try await browser.get("/"))
            #expect(again == WebBrowser.text(try await browser.get("/")), "the same list twice")
            #expect(String(buffer: try await h.get("/getchatts").body).contains("kept 2."))
            try await h.store.deleteUser(id: try #require(UUID(uuidString: ada.user.id)))
            #expect(WebBrowser.text(try await browser.get("/")).contains("No chatts yet."), "the deleted account's chatts still listed")
            #expect(String(buffer: try await h.get("/getchatts").body) == "[]", "the course API's cached list kept the deleted account's chatts")
        }
    }

    @Test func theTimelinePagesNewestFirst() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            for index in 0..<(TimelinePages.pageSize + 5) {
                h.clock.advance(by: 1)
                _ = try await h.post(NativePath.chatts, NewChattRequest(message: "chatt number \(index)."), bearer: session.accessToken)
            }
            var browser = WebBrowser(h)
            let first = WebBrowser.text(try await browser.get("/"))
            #expect(first.contains("chatt number 54.") && !first.contains("chatt number 4."))
            #expect(first.range(of: "chatt number 54.")!.lowerBound < first.range(of: "chatt number 53.")!.lowerBound, "newest first")
            let older = try #require(first.firstMatch(of: /href="\/\?before=([0-9A-F-]+)"/)?.1)
            let second = WebBrowser.text(try await browser.get("/?before=\(older)"))
            #expect(second.contains("chatt number 4.") && second.contains("chatt number 0.") && !second.contains("chatt number 5."))
        }
    }

    @Test func signingInWithAnEmailedCodeSetsTheSessionAndDeviceCookies() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            let sent = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "Ada@Example.com"), ("next", "/account")])
            #expect(sent.status == .seeOther && sent.headers[.location] == "/auth/code")
            let step = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(step.contains("ada@example.com") && step.contains("autocomplete=\"one-time-code\""))
            let wrong = try await browser.post("/auth/code/verify", [("code", "000000")])
            #expect(wrong.status == .seeOther && wrong.headers[.location] == "/auth/code", "post/redirect/get: Back never sends the code again")
            let refused = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(refused.contains("That code is not right"), "the page says why")
            #expect(refused.contains("value=\"000000\" aria-invalid=\"true\" autofocus"), "what was typed stays, with the focus")
            #expect(!WebBrowser.text(try await browser.get("/auth/code")).contains("That code is not right"), "said once")
            let code = try #require(h.mail.lastCode(to: "ada@example.com"))
            let done = try await browser.post("/auth/code/verify", [("code", code)])
            #expect(done.status == .seeOther && done.headers[.location] == "/account")
            let cookies = done.headers[values: .setCookie]
            let session = try #require(cookies.first { $0.hasPrefix(SessionAuthenticator.cookieName + "=") })
            for attribute in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=\(Int(SignInService.browserLifetime))"] {
                #expect(session.contains(attribute))
            }
            #expect(cookies.contains { $0.hasPrefix(WebVisitor.deviceCookieName + "=") }, "the browser gets a device cookie")
            let account = WebBrowser.text(try await browser.get("/account"))
            #expect(account.contains("ada@example.com") && account.contains("this browser"))
        }
    }

    @Test func formsWithoutThisBrowsersCSRFTokenAreRefusedAndChangeNothing() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            var stranger = WebBrowser(h)
            _ = try await stranger.get("/")
            for token in ["", "0123", stranger.csrf(.post), browser.csrf(.signOut)] {
                let refused = try await browser.post("/post", [("message", "forged")], csrf: token)
                #expect(refused.status == .forbidden, "token \(token.prefix(8))")
            }
            #expect(try await browser.postRaw("/post", "message=no+token+at+all").status == .forbidden)
            #expect(try await h.store.chattCount() == 0)
            let sessions = try await h.store.sessionCount()
            #expect(try await browser.post("/account/signout", [("scope", "everywhere")], csrf: stranger.csrf(.signOut)).status == .forbidden)
            #expect(try await h.store.sessionCount() == sessions)
            #expect(try await browser.post("/post", [("message", "real")]).status == .seeOther)
            #expect(try await h.store.chattCount() == 1)
        }
    }

    @Test func signInFormsCannotBePostedFromAnotherSite() async throws {
        try await Harness.run { h async throws in
            _ = try await h.passwordSignUp("mallory@example.com", password: "mallory's passphrase")
            // Login CSRF: another site posts the attacker's credentials from the victim's browser, which has
            // no browser cookie for it to know, or one whose token it cannot read.
            var victim = WebBrowser(h)
            let sessions = try await h.store.sessionCount()
            let forged = try await victim.post("/auth/password", [("email", "mallory@example.com"), ("password", "mallory's passphrase")], csrf: "guess")
            #expect(forged.status == .forbidden)
            _ = try await victim.get("/")
            let again = try await victim.post("/auth/password", [("email", "mallory@example.com"), ("password", "mallory's passphrase")], csrf: "guess")
            #expect(again.status == .forbidden)
            #expect(try await h.store.sessionCount() == sessions)
            #expect(try await victim.post("/auth/code", [("purpose", "signin"), ("email", "victim@example.com")], csrf: "guess").status == .forbidden)
            #expect(h.mail.count(to: "victim@example.com") == 0)
        }
    }

    /// Threat model, Web pages: an empty or over-long message gets the page again with a 400 and the draft
    /// in its box, escaped; nothing is posted.
    @Test func anEmptyOrOverLongMessageComesBackAsADraftAndPostsNothing() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            let long = "<b>\"x\"</b>" + String(repeating: "y", count: 1_000)
            for message in ["", "   \n ", long] {
                let page = try await browser.post("/post", [("message", message)], csrf: browser.csrf(.post))
                #expect(page.status == .badRequest, "\(message.prefix(12).debugDescription)")
                let html = WebBrowser.text(page)
                #expect(html.contains("class=\"error\""), "the page says what is wrong")
                if message == long {
                    #expect(html.contains("&lt;b&gt;&quot;x&quot;&lt;/b&gt;yyy"), "the draft is kept, escaped")
                    #expect(!html.contains("<b>\"x\"</b>"))
                }
            }
            #expect(try await h.store.chattCount() == 0)
        }
    }

    @Test func badFormsGetAClear4xx() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            let missing = try await browser.post("/auth/code", [("email", "ada@example.com")])
            #expect(missing.status == .badRequest && WebBrowser.text(missing).contains("<h1>"), "a page, not JSON")
            #expect(try await browser.post("/auth/code", [("purpose", "launch"), ("email", "ada@example.com")]).status == .badRequest)
            let invalid = try await browser.post("/auth/code", [("purpose", "signin"), ("email", "not an address")])
            #expect(invalid.status == .seeOther && invalid.headers[.location] == "/auth", "post/redirect/get")
            #expect(WebBrowser.refusal(invalid)?.contains("has an @ in it") == true)
            let shown = WebBrowser.text(try await browser.get("/auth"))
            #expect(shown.contains("has an @ in it") && shown.contains("value=\"not an address\""), "said on the page, what was typed kept")
            let long = String(repeating: "a", count: 250) + "@example.com"
            let tooLong = try await browser.post("/auth/continue", [("email", long)])
            #expect(WebBrowser.refusal(tooLong)?.contains("longer than email allows (254 characters)") == true)
            let hidden = try await browser.post("/auth/code", [("purpose", "signup"), ("email", "ada\u{200B}@example.com")])
            #expect(hidden.headers[.location] == "/auth/signup" && WebBrowser.refusal(hidden)?.contains("invisible character") == true)
            let huge = try await browser.postRaw("/auth/code", "email=" + String(repeating: "a", count: Limits.bodyBytes + 1))
            #expect(huge.status == .contentTooLarge)
            #expect(try await browser.postRaw("/auth/password", "%%%&&&===").status == .forbidden, "no token can be read from garbage")
            let noPassword = try await browser.postRaw("/auth/password", WebBrowser.encode([("email", "ada@example.com"), ("csrf", browser.csrf(.password))]))
            #expect(noPassword.status == .badRequest)
            #expect(h.mail.count(to: "ada@example.com") == 0)
        }
    }

    @Test func browsersGetErrorPagesAndAPIClientsGetJSON() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            let page = try await browser.get("/no/such/page")
            #expect(page.status == .notFound && page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(WebBrowser.text(page).contains("Page not found"))
            let api = try await h.get("/no/such/page")
            #expect(api.status == .notFound && api.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func webCodeRequestsAtOnceSendOneCode() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth")
            let frozen = browser
            let answers = try await h.parallel(30) { _ in
                var copy = frozen
                return try await copy.post("/auth/code", [("purpose", "signin"), ("email", "ada@example.com")])
            }
            // One code goes out; a repeat within the cooldown lands on the code step too (the code is on its way),
            // and the rest pass the hourly limit, counted before the cooldown is, and are refused.
            #expect(answers.count(.seeOther) == 30, "each lands on a page: the code step, or the sign-in page saying to wait")
            let landed = answers.filter { $0.status == .seeOther }.map { $0.headers[.location] }
            #expect(landed.filter { $0 == "/auth/code" }.count >= 1 && landed.allSatisfy { $0 == "/auth/code" || $0 == "/auth" })
            #expect(answers.filter { $0.headers[.location] == "/auth" }.allSatisfy { WebBrowser.refusal($0)?.contains("Too many codes") == true })
            #expect(h.mail.count(to: "ada@example.com") == 1)
        }
    }

    @Test func theCodeStepCountsDownToAResendTheServerAlsoEnforces() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth/reset")
            #expect(try await browser.post("/auth/code", [("purpose", "reset"), ("email", "ada@example.com")]).status == .seeOther)
            h.clock.advance(by: 20)
            let step = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(step.contains("data-wait=\"40\"") && step.contains("Set password and sign in") && step.contains("href=\"/auth/reset\""))
            let early = try await browser.post("/auth/code/resend", [])
            #expect(early.status == .seeOther && early.headers[.location] == "/auth/code")
            #expect(WebBrowser.text(try await browser.get("/auth/code")).contains("wait 40 seconds before asking for another"))
            #expect(h.mail.count(to: "ada@example.com") == 1)
            h.clock.advance(by: 41)
            #expect(try await browser.post("/auth/code/resend", []).status == .seeOther)
            #expect(h.mail.count(to: "ada@example.com") == 2)
            #expect(WebBrowser.text(try await browser.get("/auth/code")).contains("data-wait=\"60\""), "the countdown starts again from the new code")
        }
    }

    @Test func signUpSignOutAndSignInWithAPassword() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth/signup")
            #expect(try await browser.post("/auth/code", [("purpose", "signup"), ("email", "grace@example.com")]).status == .seeOther)
            let step = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(step.contains("autocomplete=\"new-password\"") && step.contains("name=\"displayName\""))
            let code = try #require(h.mail.lastCode(to: "grace@example.com"))
            let weak = try await browser.post("/auth/code/verify", [("code", code), ("displayName", "Grace"), ("password", "password")])
            #expect(weak.status == .seeOther, "a common password is refused, and the code stays usable")
            let again = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(again.contains("common") && again.contains("value=\"\(code)\"") && again.contains("value=\"Grace\""), "the code and name are kept")
            #expect(!again.contains("value=\"password\""), "a password is never kept")
            let done = try await browser.post(
                "/auth/code/verify", [("code", code), ("displayName", "Grace Hopper"), ("password", "a long and unusual phrase")])
            #expect(done.status == .seeOther)
            #expect(WebBrowser.text(try await browser.get("/")).contains("Grace Hopper"))
            #expect(try await browser.post("/account/signout", [("scope", "this")]).headers[.location] == "/?notice=signed-out")
            #expect(!WebBrowser.text(try await browser.get("/")).contains("href=\"/account\""))
            let wrong = try await browser.post("/auth/password", [("email", "grace@example.com"), ("password", "wrong")])
            #expect(wrong.status == .seeOther && wrong.headers[.location] == AuthPages.waysPath)
            let ways = WebBrowser.text(try await browser.get(AuthPages.waysPath))
            #expect(ways.contains("not right") && ways.contains("grace@example.com"), "the ways to sign in for the address, saying why")
            let right = try await browser.post("/auth/password", [("email", "grace@example.com"), ("password", "a long and unusual phrase")])
            #expect(right.status == .seeOther)
            #expect(WebBrowser.text(try await browser.get("/")).contains("Grace Hopper"))
        }
    }

    @Test func theOwnersBrowserKeepsItsAllowanceWhileAnAttackerIsThrottled() async throws {
        try await Harness.run { h async throws in
            _ = try await h.passwordSignUp("ada@example.com", password: "ada's own passphrase")
            var owner = WebBrowser(h)
            _ = try await owner.get("/auth")
            #expect(try await owner.post("/auth/password", [("email", "ada@example.com"), ("password", "ada's own passphrase")]).status == .seeOther)
            #expect(owner.cookies[WebVisitor.deviceCookieName] != nil)
            #expect(try await owner.post("/account/signout", [("scope", "this")]).status == .seeOther)
            var attacker = WebBrowser(h)
            _ = try await attacker.get("/auth")
            let guesser = attacker
            let answers = try await h.parallel(SignInThrottle.Limits().perAccount + 5) { index in
                var copy = guesser
                return try await copy.post("/auth/password", [("email", "ada@example.com"), ("password", "guess \(index)")])
            }
            let said = answers.map { WebBrowser.refusal($0) ?? "" }
            #expect(said.filter { $0.contains("not right") }.count == SignInThrottle.Limits().perAccount)
            #expect(said.filter { $0.contains("Too many failed sign-ins") }.count == 5)
            let refused = try await attacker.post("/auth/password", [("email", "ada@example.com"), ("password", "ada's own passphrase")])
            #expect(WebBrowser.refusal(refused)?.contains("Too many failed sign-ins") == true && attacker.cookies[SessionAuthenticator.cookieName] == nil)
            let back = try await owner.post("/auth/password", [("email", "ada@example.com"), ("password", "ada's own passphrase")])
            #expect(back.status == .seeOther, "the owner's browser signs in on its own allowance")
        }
    }

    @Test func revokingAndSigningOutEverywhereEndNativeSessionsToo() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            h.clock.advance(by: 61)
            _ = try await h.post(NativePath.emailCode, EmailCodeRequest(email: "ada@example.com"))
            let phone = try h.decode(
                SessionResponse.self,
                try await h.post(
                    NativePath.emailVerify, EmailVerifyRequest(email: "ada@example.com", code: try #require(h.mail.lastCode(to: "ada@example.com")))))
            let account = WebBrowser.text(try await browser.get("/account"))
            #expect(account.contains("/account/sessions/\(phone.sessionID)/revoke"))
            #expect(try await browser.post("/account/sessions/\(phone.sessionID)/revoke", []).status == .seeOther)
            #expect(try await h.get(NativePath.me, bearer: phone.accessToken).status == .unauthorized)
            #expect(try await browser.post("/account/sessions/\(UUID().uuidString)/revoke", []).status == .notFound)
            #expect(try await browser.post("/account/signout", [("scope", "everywhere")]).status == .seeOther)
            #expect(try await h.store.sessionCount() == 0)
        }
    }

    @Test func deletingTheAccountAsksFirst() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            #expect(try await browser.post("/post", [("message", "soon gone")]).status == .seeOther)
            let ask = try await browser.get("/account/delete")
            #expect(ask.status == .ok && WebBrowser.text(ask).contains("cannot be undone"))
            #expect(try await h.store.chattCount() == 1, "asking deletes nothing")
            let deleted = try await browser.post("/account/delete", [])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "/?notice=deleted")
            #expect(try await h.store.chattCount() == 0)
            #expect(try await h.store.user(for: .email("ada@example.com")) == nil)
            #expect(try await browser.get("/account").headers[.location] == "/auth?next=/account")
        }
    }
}
