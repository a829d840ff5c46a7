import Foundation

/// What the app's signed-in web view does with each navigation (F3), decided without WebKit so it is tested on
/// every platform: chatterd's own pages load there; a link the user follows to another site opens in the system
/// browser; everything else is cancelled. `WebSessionView` asks it about every `WKNavigationAction`.
///
/// Same origin means the scheme, host and port of the server's base URL, as a browser compares origins: the
/// scheme and host without regard to ASCII case, a missing port as the scheme's default. A host must match
/// exactly, so `chatter.example.com.evil.test`, another port, `http` for an `https` server, or a host with
/// characters outside ASCII (a look-alike from another script) is another site.
public struct WebNavigationPolicy: Sendable, Equatable {
    /// What the web view does with a navigation.
    public enum Decision: Sendable, Equatable {
        /// Load it in the web view: a page of chatterd's, in any frame.
        case load
        /// Cancel it in the web view and hand the URL to the system browser: the user followed a link to another
        /// site, in the main frame or into a new window.
        case openOutside
        /// Cancel it: another site in a subframe, a navigation to another site the user did not start (a
        /// script or a redirect), a scheme other than `http` and `https`, or no URL at all.
        case cancel
    }

    /// The server's origin; nil when its base URL has no host, and then nothing is same-origin.
    let origin: Origin?

    /// The policy for the web view of the chatterd at `server` (the client's `ChatterAPI.baseURL`).
    public init(server: URL) {
        origin = Origin(server)
    }

    /// Whether `url` has the server's origin: its scheme, host and port.
    public func isSameOrigin(_ url: URL) -> Bool {
        guard let origin, let other = Origin(url) else { return false }
        return origin == other
    }

    /// Decides a navigation to `url`. `isMainFrame` is WebKit's `navigationAction.targetFrame?.isMainFrame`:
    /// `true` for the main frame, `false` for a subframe (an iframe), `nil` for a new window. `userInitiated`
    /// is whether the user activated a link (`navigationType == .linkActivated`).
    ///
    /// Only a user's link to another site in the main frame or into a new window opens outside; a subframe
    /// never opens the browser, whatever it loads and whoever started it, so a page cannot open Safari with an
    /// iframe. A new window of chatterd's own is `.load`: the web view has no second window and loads it itself.
    public func decide(_ url: URL?, isMainFrame: Bool?, userInitiated: Bool) -> Decision {
        guard let url, let scheme = url.scheme.map(Self.asciiLowercased), scheme == "https" || scheme == "http" else {
            return .cancel
        }
        if isSameOrigin(url) { return .load }
        guard isMainFrame != false, userInitiated else { return .cancel }
        return .openOutside
    }

    /// A URL's scheme, host and port as compared for the same origin.
    struct Origin: Sendable, Equatable {
        let scheme: String
        let host: String
        let port: Int

        /// Nil for a URL that is not `http` or `https`, has no host, or has a host outside ASCII.
        init?(_ url: URL) {
            guard let rawScheme = url.scheme, let rawHost = url.host(percentEncoded: false), !rawHost.isEmpty,
                rawHost.unicodeScalars.allSatisfy(\.isASCII)
            else { return nil }
            scheme = WebNavigationPolicy.asciiLowercased(rawScheme)
            switch scheme {
            case "https": port = url.port ?? 443
            case "http": port = url.port ?? 80
            default: return nil
            }
            host = WebNavigationPolicy.asciiLowercased(rawHost)
        }
    }

    /// ASCII letters lowered, nothing else changed. `String.lowercased()` folds some non-ASCII letters into
    /// ASCII ones (the Kelvin sign U+212A becomes `k`), which would let a look-alike host compare equal.
    static func asciiLowercased(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    ("A"..."Z").contains(scalar) ? Unicode.Scalar(UInt8(scalar.value + 32)) : scalar
                }))
    }
}
