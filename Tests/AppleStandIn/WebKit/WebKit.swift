@_exported import Foundation
import UIKit

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

@MainActor open class WKWebViewConfiguration: NSObject {
    public override init() { super.init() }
}

@MainActor open class WKNavigation: NSObject {}

@MainActor open class WKNavigationAction: NSObject {
    open var request: URLRequest { fatalError() }
}

public enum WKNavigationActionPolicy: Int, Sendable {
    case cancel, allow, download
}

/// Every requirement is optional in WebKit (an Objective-C protocol); the defaults below stand for that.
@MainActor public protocol WKNavigationDelegate: NSObjectProtocol {
    func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async -> WKNavigationActionPolicy
}

extension WKNavigationDelegate {
    public func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async -> WKNavigationActionPolicy { .allow }
}

@MainActor open class WKWebView: UIView {
    public init(frame: CGRect, configuration: WKWebViewConfiguration) { super.init(frame: frame) }
    weak open var navigationDelegate: (any WKNavigationDelegate)?
    @discardableResult open func load(_ request: URLRequest) -> WKNavigation? { nil }
}
