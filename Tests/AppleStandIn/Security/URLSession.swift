// swift-format-ignore-file: AlwaysUseLowerCamelCase
// The stand-in keeps the name of the constant it stands in for (`NSURLAuthenticationMethodServerTrust`).
// Foundation's URL loading API that involves Security types. On Apple's systems it is part of Foundation; Linux has
// it in FoundationNetworking, where swift-corelibs-foundation declares the server-trust members unavailable (no
// Security framework). They are declared here, so that the delegate that checks a server's key type-checks; these
// shadow FoundationNetworking's unavailable ones.

import Foundation

/// https://developer.apple.com/documentation/foundation/nsurlauthenticationmethodservertrust
public let NSURLAuthenticationMethodServerTrust: String = standIn()

extension URLProtectionSpace {
    /// https://developer.apple.com/documentation/foundation/urlprotectionspace/servertrust — nil unless the
    /// authentication method is server trust.
    public var serverTrust: SecTrust? { fatalError() }
}

extension URLCredential {
    /// https://developer.apple.com/documentation/foundation/urlcredential/init(trust:)
    public convenience init(trust: SecTrust) { fatalError() }
}

/// https://developer.apple.com/documentation/foundation/urlsessiondelegate/urlsession(_:didreceive:completionhandler:)
/// — Swift's async form of it. On Apple's systems it is an optional requirement (an Objective-C protocol), which a
/// delegate implements as `urlSession(_:didReceive:) async`; FoundationNetworking has only the completion-handler form.
/// The default below stands for the optional requirement.
extension URLSessionDelegate {
    public func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) { fatalError() }
}
