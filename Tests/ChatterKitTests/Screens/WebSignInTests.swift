import Foundation
import Synchronization
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

    @Test @MainActor func linksAwayFromChatterdOpenInTheBrowser() throws {
        let web = WebSignIn(client: ChatterClient(api: ChatterAPI(baseURL: URL(string: "https://chatter.example:8443")!), store: MemoryStore()))
        let opened = Mutex<[URL]>([])
        let open: (URL) -> Void = { url in opened.withLock { $0.append(url) } }
        #expect(web.allowsNavigation(to: URL(string: "https://chatter.example:8443/account"), openExternally: open))
        #expect(web.allowsNavigation(to: nil, openExternally: open), "a navigation without a URL (about:blank) stays")
        let elsewhere = [
            "https://example.com/", "http://chatter.example:8443/", "https://chatter.example/", "https://chatter.example.evil.com:8443/",
        ].map { URL(string: $0)! }
        for url in elsewhere {
            #expect(web.allowsNavigation(to: url, openExternally: open) == false, "\(url)")
        }
        #expect(opened.withLock { $0 } == elsewhere)
    }
}
