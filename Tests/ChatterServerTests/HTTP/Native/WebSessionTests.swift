import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Turning a bearer session into a web-view cookie session (F3), with CSRF protection.
@Suite struct WebSessionTests {
    func cookie(_ h: Harness) async throws -> (cookie: String, setCookie: String) {
        let session = try await h.nativeSignIn()
        let link = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: session.accessToken))
        let redeemed = try await h.openInApp(link.url + "&next=/timeline")
        #expect(redeemed.status == .seeOther)
        #expect(redeemed.headers[.location] == "/timeline")
        let setCookie = try #require(redeemed.headers[.setCookie])
        let value = String(setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1)[1])
        return (value, setCookie)
    }

    @Test func handoffSetsAHardenedCookieOnce() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            let link = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: session.accessToken))
            #expect(link.expiresIn == 60)
            let redeemed = try await h.openInApp(link.url)
            let setCookie = try #require(redeemed.headers[.setCookie])
            #expect(setCookie.hasPrefix("__Host-chatter-session="))
            for attribute in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"] { #expect(setCookie.contains(attribute)) }
            #expect(!setCookie.contains("Domain="), "__Host- cookies must not name a domain")
            #expect(try await h.openInApp(link.url).status == .unauthorized, "the link works once")
        }
    }

    @Test func cookieAuthenticatesReadsAndNeedsCSRFForWrites() async throws {
        try await Harness.run { h async throws in
            let (value, _) = try await cookie(h)
            let cookieHeader: HTTPFields = [.cookie: "\(SessionAuthenticator.cookieName)=\(value)"]
            #expect(try await h.get(NativePath.me, headers: cookieHeader).status == .ok)
            let noToken = try await h.post(NativePath.chatts, json: #"{"message":"hi"}"#, headers: cookieHeader)
            #expect(noToken.status == .forbidden)
            #expect(try h.error(noToken).error == "csrf_failed")
            let csrf = try h.decode([String: String].self, try await h.get(NativePath.webSession + "/csrf", headers: cookieHeader))["csrfToken"] ?? ""
            var withToken = cookieHeader
            withToken[SessionAuthenticator.csrfHeader] = csrf
            #expect(try await h.post(NativePath.chatts, json: #"{"message":"hi"}"#, headers: withToken).status == .created)
            #expect(try await h.store.chattCount() == 1)
        }
    }

    /// Threat model, Web session hand-off: another site's script can ask for `…/csrf` with the visitor's
    /// cookie, but without CORS headers the browser never lets it read the token, and a preflight grants nothing.
    @Test func anotherSiteCannotReadTheCookieSessionsCSRFToken() async throws {
        try await Harness.run { h async throws in
            let (value, _) = try await cookie(h)
            var crossSite: HTTPFields = [.cookie: "\(SessionAuthenticator.cookieName)=\(value)", .origin: "https://evil.example"]
            let answer = try await h.get(NativePath.webSession + "/csrf", headers: crossSite)
            #expect(answer.status == .ok, "the server answers; the browser withholds the answer from the other site")
            crossSite[HTTPField.Name("Access-Control-Request-Method")!] = "GET"
            crossSite[HTTPField.Name("Access-Control-Request-Headers")!] = SessionAuthenticator.csrfHeader.rawName
            let preflight = try await h.client.execute(uri: NativePath.webSession + "/csrf", method: .options, headers: crossSite)
            for response in [answer, preflight] {
                let cors = response.headers.filter { $0.name.canonicalName.hasPrefix("access-control-") }
                #expect(cors.isEmpty, "\(response.status): \(cors)")
            }
        }
    }

    @Test func expiredLinkAndOpenRedirectAreRefused() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            let link = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: session.accessToken))
            let evil = try await h.openInApp(link.url + "&next=//evil.example")
            #expect(evil.headers[.location] == "/")
            for trick in ["/%5Cevil.example/", "/%09/evil.example", "https://evil.example", "/%0d%0aSet-Cookie:x"] {
                #expect(WebSessions.sameSitePath(trick.removingPercentEncoding ?? trick) == nil, "\(trick) must not be followed")
            }
            #expect(WebSessions.sameSitePath("/timeline?tab=mine") == "/timeline?tab=mine")
            let second = try h.decode(WebSessionResponse.self, try await h.post(NativePath.webSession, json: "", bearer: session.accessToken))
            h.clock.advance(by: 61)
            #expect(try await h.openInApp(second.url).status == .unauthorized)
        }
    }
}
