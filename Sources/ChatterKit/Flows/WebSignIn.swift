import Foundation
import Observation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A web view inside the app, signed in as the app is (F3): it loads the one-time link from
/// `ChatterClient.webSessionRequest()`, which sets the web session's cookie and lands on chatterd's pages.
@MainActor @Observable
public final class WebSignIn {
    /// The first request the web view loads, once `load()` has it.
    public private(set) var request: URLRequest?
    /// A load is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorMessage: String?

    @ObservationIgnored let client: ChatterClient

    /// A web view over `client`'s session.
    public init(client: ChatterClient) {
        self.client = client
    }

    /// Fetches a fresh one-time link (each works once, for a minute): call when the web view appears.
    public func load() async {
        isLoading = true
        defer { isLoading = false }
        do {
            request = try await client.webSessionRequest()
            errorMessage = nil
        } catch {
            errorMessage = ChatterError.banner(for: error)
        }
    }

    /// Whether a link the user followed stays in the web view: chatterd's own pages do; anything else
    /// opens in the browser, so the app's signed-in web view never shows another site.
    public func opensInWebView(_ url: URL) -> Bool {
        let server = client.api.baseURL
        return url.scheme == server.scheme && url.host == server.host && url.port == server.port
    }

    /// Decides a navigation in the web view: `true` loads it there; a link elsewhere goes to
    /// `openExternally` (the system browser) and the web view stays where it is.
    public func allowsNavigation(to url: URL?, openExternally: (URL) -> Void) -> Bool {
        guard let url, !opensInWebView(url) else { return true }
        openExternally(url)
        return false
    }
}
