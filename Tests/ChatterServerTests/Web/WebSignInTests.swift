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

/// The two ways into a browser that do not start on `/auth`: the native hand-off link (which must not
/// allow login CSRF) and Google Identity Services posting an ID token.
@Suite struct WebSignInTests {
    func link(_ h: Harness, for session: SessionResponse, next: String = "/account") async throws -> String {
        try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: session.accessToken)).url + "&next=" + next
    }

    @Test func aLinkOpenedOutsideTheAppAsksFirstAndStaysUnused() async throws {
        try await Harness.run { h async throws in
            let app = try await h.nativeSignIn()
            let url = try await link(h, for: app)
            // A victim's browser opening an attacker's link: a question naming the account, no session.
            var victim = WebBrowser(h)
            let asked = try await victim.get(url)
            #expect(asked.status == .ok && WebBrowser.text(asked).contains("Continue as Ada Lovelace?"))
            #expect(victim.cookies[SessionAuthenticator.cookieName] == nil)
            #expect(try await h.store.sessionCount() == 1, "only the app's session")
            // Confirming needs this browser's CSRF token, so another site cannot confirm for it.
            let code = String(url.split(separator: "code=")[1].split(separator: "&")[0])
            let forged = try await victim.post(NativePath.webSession + "/redeem", [("code", code), ("next", "/account")], csrf: "forged")
            #expect(forged.status == .forbidden && victim.cookies[SessionAuthenticator.cookieName] == nil)
            let confirmed = try await victim.post(NativePath.webSession + "/redeem", [("code", code), ("next", "/account")])
            #expect(confirmed.status == .seeOther && confirmed.headers[.location] == "/account")
            #expect(victim.cookies[SessionAuthenticator.cookieName] != nil)
            #expect(try await victim.post(NativePath.webSession + "/redeem", [("code", code)]).status == .unauthorized, "once")
        }
    }

    @Test func theAppsOwnWebViewGoesStraightIn() async throws {
        try await Harness.run { h async throws in
            let app = try await h.nativeSignIn()
            var webView = WebBrowser(h)
            let opened = try await webView.get(try await link(h, for: app), extra: [WebSessionRoutes.appHeader: WebSessionResponse.appHeaderValue])
            #expect(opened.status == .seeOther && opened.headers[.location] == "/account")
            #expect(WebBrowser.text(try await webView.get("/account")).contains("Ada Lovelace"))
        }
    }

    @Test func switchingASignedInBrowserToAnotherAccountAlwaysAsks() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("grace@example.com").status == .seeOther)
            let graceSession = try #require(browser.cookies[SessionAuthenticator.cookieName])
            let ada = try await h.nativeSignIn()
            let url = try await link(h, for: ada)
            let asked = try await browser.get(url, extra: [WebSessionRoutes.appHeader: WebSessionResponse.appHeaderValue])
            #expect(asked.status == .ok, "even the app's header does not switch accounts silently")
            let text = WebBrowser.text(asked)
            #expect(text.contains("Continue as Ada Lovelace?") && text.contains("signed in as <strong>grace</strong>"))
            let code = String(url.split(separator: "code=")[1].split(separator: "&")[0])
            #expect(try await browser.post(NativePath.webSession + "/redeem", [("code", code)]).status == .seeOther)
            #expect(try await h.services.sessions.authenticate(graceSession) == .unknown, "the browser's previous session ended")
            // Already signed in to the link's account: it just lands, and the link is used up.
            let again = try await link(h, for: ada, next: "/")
            #expect(try await browser.get(again).headers[.location] == "/")
            #expect(try await h.openInApp(again).status == .unauthorized)
        }
    }

    @Test func googleIdentityServicesPostsAnIDTokenVerifiedForTheWebClient() async throws {
        let web = "5678-web.apps.googleusercontent.com"
        try await Harness.run(configure: { $0.googleWebClientID = web }) { h async throws in
            var browser = WebBrowser(h)
            let page = try await browser.get("/auth")
            #expect(WebBrowser.text(page).contains("data-client_id=\"\(web)\""))
            #expect(page.headers[.contentSecurityPolicy]?.contains("https://accounts.google.com/gsi/client") == true)
            let token = try h.issuer.sign(TestIssuer.claims(subject: "2000002", name: "Web Person", audience: web, now: h.clock.now))
            browser.cookies["g_csrf_token"] = "double-submit"
            let mismatched = try await browser.postRaw("/auth/google", WebBrowser.encode([("credential", token), ("g_csrf_token", "other")]))
            #expect(mismatched.status == .forbidden)
            let nativeToken = try h.issuer.sign(TestIssuer.claims(subject: "2000002", audience: TestIssuer.clientID, now: h.clock.now))
            let wrongAudience = try await browser.postRaw("/auth/google", WebBrowser.encode([("credential", nativeToken), ("g_csrf_token", "double-submit")]))
            #expect(wrongAudience.status == .unauthorized, "a token for the native client is not one for the web button")
            #expect(try await h.store.sessionCount() == 0)
            let signedIn = try await browser.postRaw("/auth/google", WebBrowser.encode([("credential", token), ("g_csrf_token", "double-submit")]))
            #expect(signedIn.status == .seeOther && browser.cookies[SessionAuthenticator.cookieName] != nil)
            #expect(WebBrowser.text(try await browser.get("/")).contains("Web Person"))
        }
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(!WebBrowser.text(try await browser.get("/auth")).contains("g_id_onload"), "no button without a web client ID")
            #expect(try await browser.postRaw("/auth/google", "credential=x&g_csrf_token=y").status == .notFound)
        }
    }
}
