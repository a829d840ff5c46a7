#if canImport(SwiftUI) && canImport(WebKit) && !os(tvOS) && !os(watchOS)
    import ChatterKit
    import SwiftUI
    import WebKit

    /// chatterd's web pages in a web view, signed in as the app is (F3): it loads the one-time link from
    /// `WebSignIn`, which sets the web session's cookie. Links away from chatterd open in the browser.
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
                    SignedInWebView(request: request) { url in
                        web.allowsNavigation(to: url) { openURL($0) }
                    }
                }
                if web.isLoading { ProgressView() }
            }
            .errorBanner(web.errorMessage)
            .task { await web.load() }
        }
    }

    /// A `WKWebView` that loads `request` once and asks `allows` about every navigation.
    @MainActor struct SignedInWebView {
        let request: URLRequest
        let allows: @MainActor (URL?) -> Bool

        func makeCoordinator() -> Coordinator {
            Coordinator(allows: allows)
        }

        func makeWebView(coordinator: Coordinator) -> WKWebView {
            let view = WKWebView(frame: .zero, configuration: WKWebViewConfiguration())
            view.navigationDelegate = coordinator
            view.load(request)
            return view
        }

        final class Coordinator: NSObject, WKNavigationDelegate {
            let allows: @MainActor (URL?) -> Bool

            init(allows: @escaping @MainActor (URL?) -> Bool) {
                self.allows = allows
            }

            func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async -> WKNavigationActionPolicy {
                allows(navigationAction.request.url) ? .allow : .cancel
            }
        }
    }

    #if canImport(UIKit)
        extension SignedInWebView: UIViewRepresentable {
            func makeUIView(context: Context) -> WKWebView { makeWebView(coordinator: context.coordinator) }
            func updateUIView(_ view: WKWebView, context: Context) {}
        }
    #else
        extension SignedInWebView: NSViewRepresentable {
            func makeNSView(context: Context) -> WKWebView { makeWebView(coordinator: context.coordinator) }
            func updateNSView(_ view: WKWebView, context: Context) {}
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
