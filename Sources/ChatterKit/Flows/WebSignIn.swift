import Foundation
import Observation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A web view inside the app, signed in as the app is (F3): it loads the one-time link from
/// `ChatterClient.webSessionRequest()`, which sets the web session's cookie and lands on chatterd's pages.
/// `navigationPolicy` decides every navigation, `pins` the server keys the web view accepts, and `run()` drops
/// the request when the app signs out, so the web view (and the cookie in its own data store) goes with it.
@MainActor @Observable
public final class WebSignIn {
    /// The first request the web view loads, once `load()` has it.
    public private(set) var request: URLRequest?
    /// A load is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorMessage: String?

    /// What the web view loads, opens in the browser or cancels; same-origin is the client's `ChatterAPI.baseURL`.
    @ObservationIgnored public let navigationPolicy: WebNavigationPolicy
    /// The server keys the web view accepts (see `PinnedSessionDelegate`), or nil for the system's trust alone.
    @ObservationIgnored public let pins: Set<String>?

    @ObservationIgnored let client: ChatterClient

    /// A web view over `client`'s session. `pins` are the keys its web view accepts; by default those of the
    /// client's transport when it is a `URLSessionTransport` whose session's delegate is a `PinnedSessionDelegate`,
    /// so a web view pins whenever the app's requests do. Pass them when the app pins another way.
    public init(client: ChatterClient, pins: Set<String>? = nil) {
        self.client = client
        navigationPolicy = WebNavigationPolicy(server: client.api.baseURL)
        self.pins = pins ?? Self.pins(of: client.api.transport)
    }

    /// The pins of a `URLSessionTransport` over a `PinnedSessionDelegate`; nil for any other transport.
    nonisolated static func pins(of transport: any HTTPTransport) -> Set<String>? {
        #if canImport(Security)
            guard let transport = transport as? URLSessionTransport, let delegate = transport.session.delegate as? PinnedSessionDelegate else {
                return nil
            }
            return delegate.pins
        #else
            return nil
        #endif
    }

    /// Loads a one-time link, then follows the session until the calling task ends (run it from the web view's
    /// `.task`): when the app signs out, `request` becomes nil, so the web view, its data store and the web
    /// session's cookie in it go away; a sign-in after that loads a link for the new session.
    public func run() async {
        let events = await client.sessions.events()
        await load()
        // Two events matter; the rest (the initial state, a refresh) leave the page as it is.
        for await event in events {
            if case .signedOut = event {
                signedOut()
            } else if case .signedIn = event {
                request = nil  // another account's page must not stay up while the new link loads
                await load()
            }
        }
    }

    /// The app signed out: nothing to show, and no cookie of the old session may stay on screen.
    func signedOut() {
        request = nil
        errorMessage = ChatterError.notSignedIn.message
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

    /// Whether `url` is one of chatterd's pages (the server's scheme, host and port), which load in the web view.
    public func opensInWebView(_ url: URL) -> Bool {
        navigationPolicy.isSameOrigin(url)
    }
}
