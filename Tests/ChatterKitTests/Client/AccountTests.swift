import Foundation
import Testing

@testable import ChatterKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Account operations through the SDK against chatterd: web-view handoff, password reset and change,
/// account deletion.
@Suite struct AccountTests {
    @Test func aWebViewLinkSetsTheCookieSessionOnce() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInByEmail(on: server)
            let request = try await client.webSessionRequest()
            let link = try #require(request.url)
            #expect(link.absoluteString.hasPrefix(server.baseURL.absoluteString + NativePath.webSession + "/redeem?code="))
            let headers = request.allHTTPHeaderFields ?? [:]
            #expect(headers[WebSessionResponse.appHeader] == WebSessionResponse.appHeaderValue)

            // What the web view sees: the redirect and its cookie (not followed here, to look at them).
            let web = URLSessionTransport(session: URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil))
            let asked = try await web.send(TransportRequest(method: "GET", url: link))
            #expect(asked.status == 200, "opened without the app's header, the link asks first and stays unused")
            let first = try await web.send(TransportRequest(method: "GET", url: link, headers: headers))
            #expect(first.status == 303)
            let cookie = first.headers.first { $0.key.lowercased() == "set-cookie" && $0.value.hasPrefix("__Host-chatter-session=") }?.value ?? ""
            #expect(cookie.contains("HttpOnly") && cookie.contains("Secure") && cookie.contains("SameSite=Lax"))
            #expect(try await web.send(TransportRequest(method: "GET", url: link, headers: headers)).status == 401, "the link works once")
        }
    }

    @Test func forgottenPasswordIsResetWithAnEmailedCodeAndEndsOtherSessions() async throws {
        try await LiveServer.run { server in
            let laptop = server.client()
            let phone = server.client()
            _ = try await laptop.requestEmailCode(email: "ada@example.com")
            try await laptop.signUp(email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), password: "first passphrase")
            try await phone.signIn(email: "ada@example.com", password: "first passphrase")

            server.clock.advance(by: 61)
            _ = try await phone.requestEmailCode(email: "ada@example.com")
            try await phone.resetPassword(
                email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), newPassword: "second passphrase")
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await laptop.me() }
            #expect(try await phone.me().email == "ada@example.com")
            await #expect(throws: ChatterError.self) { try await server.client().signIn(email: "ada@example.com", password: "first passphrase") }
            try await server.client().signIn(email: "ada@example.com", password: "second passphrase")
        }
    }

    @Test func changingThePasswordNeedsTheCurrentOne() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            _ = try await client.requestEmailCode(email: "ada@example.com")
            try await client.signUp(email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), password: "first passphrase")
            await #expect(throws: ChatterError.self) { try await client.changePassword(current: "wrong guess", new: "second passphrase") }
            try await client.changePassword(current: "first passphrase", new: "second passphrase")
            #expect(try await client.me().email == "ada@example.com", "this session stays signed in")
            try await server.client().signIn(email: "ada@example.com", password: "second passphrase")
        }
    }

    @Test func deletingTheAccountSignsOutEverywhere() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            let other = server.client()
            try await client.signInByEmail(on: server)
            try await other.signInByEmail(on: server)
            let events = EventLog(await client.sessions.events())
            try await client.deleteAccount()
            #expect(store.keys.contains(StoreKey.session) == false)
            #expect(await events.waitFor(2).last == .signedOut(.accountDeleted))
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await other.me() }
            #expect(try await server.store.userCount() == 0)
        }
    }
}

final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
