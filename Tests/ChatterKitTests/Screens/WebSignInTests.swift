import Foundation
import Testing

@testable import ChatterKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The web view's model (F3): a one-time link from the live server, and links away from it kept out.
@Suite struct WebSignInTests {
    @Test func loadsAOneTimeLinkOnTheServerWithTheAppsHeader() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInByEmail(on: server)
            let web = await WebSignIn(client: client)
            await web.load()
            let request = try #require(await web.request)
            let url = try #require(request.url)
            #expect(await web.opensInWebView(url))
            #expect(url.path == NativePath.webSession + "/redeem")
            #expect(request.value(forHTTPHeaderField: WebSessionResponse.appHeader) == WebSessionResponse.appHeaderValue)
        }
    }

    @Test func signedOutItSaysSoInsteadOfLoading() async throws {
        try await LiveServer.run { server in
            let web = await WebSignIn(client: server.client())
            await web.load()
            #expect(await web.request == nil)
            #expect(await web.errorMessage == ChatterError.notSignedIn.message)
        }
    }

    @Test func signingOutInTheAppTakesTheWebViewAway() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInByEmail(on: server)
            let web = await WebSignIn(client: client)
            let following = Task { await web.run() }
            defer { following.cancel() }
            #expect(await eventually { await web.request != nil })

            _ = try await client.sessions.signOut()
            #expect(await eventually { await web.request == nil }, "no request, no web view, no data store and no cookie")
            #expect(await web.errorMessage == ChatterError.notSignedIn.message)

            server.clock.advance(by: 61)
            try await client.signInByEmail("grace@example.com", on: server)
            #expect(await eventually { await web.request != nil }, "a new sign-in loads a link for the new session")
        }
    }

    @Test @MainActor func theWebViewPinsWhatTheAppsRequestsPinAndJudgesOriginsByTheServer() throws {
        let api = ChatterAPI(baseURL: URL(string: "https://chatter.example:8443")!)
        let unpinned = WebSignIn(client: ChatterClient(api: api, store: MemoryStore()))
        #expect(unpinned.pins == nil, "URLSession.shared: the system's trust alone")
        let pinned = WebSignIn(client: ChatterClient(api: api, store: MemoryStore()), pins: ["jXr+BCt0="])
        #expect(pinned.pins == ["jXr+BCt0="])
        #expect(unpinned.navigationPolicy == WebNavigationPolicy(server: api.baseURL))
        #expect(unpinned.opensInWebView(URL(string: "https://chatter.example:8443/account")!))
        #expect(!unpinned.opensInWebView(URL(string: "https://chatter.example/")!))
    }
}
