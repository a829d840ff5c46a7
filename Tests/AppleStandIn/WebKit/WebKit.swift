@_exported import Foundation
import UIKit

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

@MainActor open class WKWebViewConfiguration: NSObject {
    public override init() { super.init() }
    /// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration/websitedatastore
    open var websiteDataStore: WKWebsiteDataStore {
        get { fatalError() }
        set {}
    }
}

/// https://developer.apple.com/documentation/webkit/wkwebsitedatastore
@MainActor open class WKWebsiteDataStore: NSObject {
    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/nonpersistent()
    open class func nonPersistent() -> WKWebsiteDataStore { fatalError() }
    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/default()
    open class func `default`() -> WKWebsiteDataStore { fatalError() }
    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/allwebsitedatatypes()
    open class func allWebsiteDataTypes() -> Set<String> { fatalError() }
    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/removedata(oftypes:modifiedsince:completionhandler:)
    open func removeData(ofTypes dataTypes: Set<String>, modifiedSince date: Date, completionHandler: @escaping @MainActor @Sendable () -> Void) {}
}

@MainActor open class WKNavigation: NSObject {}

/// https://developer.apple.com/documentation/webkit/wkframeinfo
@MainActor open class WKFrameInfo: NSObject {
    /// https://developer.apple.com/documentation/webkit/wkframeinfo/ismainframe
    open var isMainFrame: Bool { fatalError() }
}

/// https://developer.apple.com/documentation/webkit/wknavigationtype (raw values: WKNavigationAction.h)
public enum WKNavigationType: Int, Sendable {
    case linkActivated = 0
    case formSubmitted = 1
    case backForward = 2
    case reload = 3
    case formResubmitted = 4
    case other = -1
}

@MainActor open class WKNavigationAction: NSObject {
    open var request: URLRequest { fatalError() }
    /// https://developer.apple.com/documentation/webkit/wknavigationaction/targetframe — nil for a new window.
    open var targetFrame: WKFrameInfo? { fatalError() }
    /// https://developer.apple.com/documentation/webkit/wknavigationaction/navigationtype
    open var navigationType: WKNavigationType { fatalError() }
}

public enum WKNavigationActionPolicy: Int, Sendable {
    case cancel, allow, download
}

/// Every requirement is optional in WebKit (an Objective-C protocol); the defaults below stand for that.
@MainActor public protocol WKNavigationDelegate: NSObjectProtocol {
    func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async -> WKNavigationActionPolicy
    /// https://developer.apple.com/documentation/webkit/wknavigationdelegate/webview(_:didreceive:completionhandler:)
    func webView(
        _ webView: WKWebView, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @MainActor @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
}

extension WKNavigationDelegate {
    public func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async -> WKNavigationActionPolicy { .allow }
    public func webView(
        _ webView: WKWebView, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @MainActor @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {}
}

@MainActor open class WKWebView: UIView {
    public init(frame: CGRect, configuration: WKWebViewConfiguration) { super.init(frame: frame) }
    /// https://developer.apple.com/documentation/webkit/wkwebview/configuration — a copy of the one passed to init.
    open var configuration: WKWebViewConfiguration { fatalError() }
    weak open var navigationDelegate: (any WKNavigationDelegate)?
    @discardableResult open func load(_ request: URLRequest) -> WKNavigation? { nil }
    /// https://developer.apple.com/documentation/webkit/wkwebview/stoploading()
    open func stopLoading() {}
}
