#if canImport(SwiftUI) && canImport(WebKit) && !os(tvOS) && !os(watchOS)
    import ChatterKit
    import SwiftUI
    import WebKit

    /// chatterd's web pages in a web view, signed in as the app is (F3): it loads the one-time link from
    /// `WebSignIn`, which sets the web session's cookie. `WebSignIn.navigationPolicy` decides every navigation: a
    /// link the user follows to another site opens in the browser, anything else off chatterd is cancelled. The
    /// cookie lives in a data store of this view's own, in memory, and goes when the app signs out.
    public struct WebSessionView: View {
        let web: WebSignIn
        @Environment(\.openURL) private var openURL

        /// A web view over `web`.
        public init(web: WebSignIn) {
            self.web = web
        }

        public var body: some View {
            ZStack {
                if let request = web.request {
                    // A web view (and its data store) per link: a sign-out, which sets `request` to nil, takes it
                    // away; a new link for another session never reuses the old one's cookie.
                    SignedInWebView(request: request, policy: web.navigationPolicy, pins: web.pins) { openURL($0) }
                        .id(request)
                }
                if web.isLoading { ProgressView() }
            }
            .errorBanner(web.errorMessage)
            .task { await web.run() }
        }
    }

    /// A `WKWebView` that loads `request` once, decides every navigation with `policy` and, with `pins`, accepts
    /// only a server whose key matches one.
    @MainActor struct SignedInWebView {
        let request: URLRequest
        let policy: WebNavigationPolicy
        let pins: Set<String>?
        let openOutside: @MainActor (URL) -> Void

        func makeCoordinator() -> Coordinator {
            Coordinator(policy: policy, pins: pins, openOutside: openOutside)
        }

        func makeWebView(coordinator: Coordinator) -> WKWebView {
            let configuration = WKWebViewConfiguration()
            // In memory and this view's alone: the web session's cookie never reaches the shared, persistent store
            // (nor Safari's), and it ends with the view.
            configuration.websiteDataStore = .nonPersistent()
            let view = WKWebView(frame: .zero, configuration: configuration)
            view.navigationDelegate = coordinator
            view.load(request)
            return view
        }

        /// The app signed out (`WebSignIn` dropped the request) or the view left the screen. Its store is in memory
        /// and this view's alone, so releasing the view would end the cookie; but WebKit may keep the view (and so
        /// its store) alive a little longer, with a load under way, so the data is removed here, at once, rather
        /// than whenever the last reference goes. Nothing else shares the store, so removing everything is exact.
        static func dismantle(_ view: WKWebView) {
            view.stopLoading()
            view.navigationDelegate = nil
            let store = view.configuration.websiteDataStore
            store.removeData(ofTypes: WKWebsiteDataStore.allWebsiteDataTypes(), modifiedSince: .distantPast) {}
        }

        final class Coordinator: NSObject, WKNavigationDelegate {
            let policy: WebNavigationPolicy
            let pins: Set<String>?
            let openOutside: @MainActor (URL) -> Void

            init(policy: WebNavigationPolicy, pins: Set<String>?, openOutside: @escaping @MainActor (URL) -> Void) {
                self.policy = policy
                self.pins = pins
                self.openOutside = openOutside
            }

            func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async -> WKNavigationActionPolicy {
                let request = navigationAction.request
                let isMainFrame = navigationAction.targetFrame?.isMainFrame
                switch policy.decide(request.url, isMainFrame: isMainFrame, userInitiated: navigationAction.navigationType == .linkActivated) {
                case .load where isMainFrame == nil:
                    // chatterd's own page for a new window: there is no second window, so it loads here.
                    webView.load(request)
                    return .cancel
                case .load:
                    return .allow
                case .openOutside:
                    if let url = request.url { openOutside(url) }
                    return .cancel
                case .cancel:
                    return .cancel
                }
            }

            /// With pins, a server-trust challenge is decided as the app's own requests are
            /// (`PinnedSessionDelegate.disposition(for:pins:)`); without, WebKit's default handling.
            func webView(
                _ webView: WKWebView, didReceive challenge: URLAuthenticationChallenge,
                completionHandler: @escaping @MainActor @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
            ) {
                guard let pins else { return completionHandler(.performDefaultHandling, nil) }
                let (disposition, credential) = PinnedSessionDelegate.disposition(for: challenge, pins: pins)
                completionHandler(disposition, credential)
            }
        }
    }

    #if canImport(UIKit)
        extension SignedInWebView: UIViewRepresentable {
            func makeUIView(context: Context) -> WKWebView { makeWebView(coordinator: context.coordinator) }
            func updateUIView(_ view: WKWebView, context: Context) {}
            static func dismantleUIView(_ view: WKWebView, coordinator: Coordinator) { dismantle(view) }
        }
    #else
        extension SignedInWebView: NSViewRepresentable {
            func makeNSView(context: Context) -> WKWebView { makeWebView(coordinator: context.coordinator) }
            func updateNSView(_ view: WKWebView, context: Context) {}
            static func dismantleNSView(_ view: WKWebView, coordinator: Coordinator) { dismantle(view) }
        }
    #endif

    #if DEBUG
        struct WebSessionView_Previews: PreviewProvider {
            static var previews: some View {
                WebSessionView(web: WebSignIn(client: .sample()))
            }
        }
    #endif
#endif
