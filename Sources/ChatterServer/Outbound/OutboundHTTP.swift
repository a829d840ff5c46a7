import AsyncHTTPClient
import ChatterCore
import Foundation
import NIOCore

/// Everything chatterd fetches from elsewhere (Apple's token service, the providers' key sets, anything
/// later) goes through one client under one policy:
/// - https only; plain http only to this machine (tests, a local stand-in), so no secret crosses a network
///   in clear text;
/// - no redirects: a redirect is an answer like any other status, and the request fails. AsyncHTTPClient's
///   default follows up to 20, across hosts, from https to http, and keeps a POST's body on a 307 — which
///   would carry Apple's client secret and an authorization code wherever the answer pointed;
/// - TLS 1.2 at least, certificates verified;
/// - a bounded time to connect and to read (each caller bounds the whole request and the body it reads).
public enum OutboundHTTP {
    /// The one client. It lives as long as the process, as `HTTPClient.shared` does.
    public static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

    /// The client's configuration: TLS as `ClientTLS`, no redirects, bounded connect and read times.
    package static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: ClientTLS.configuration(), redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        configuration.decompression = .disabled
        return configuration
    }

    /// Why chatterd must not fetch `url`, or nil when it may: an absolute https URL, or http to this machine,
    /// with no credentials in it.
    public static func problem(with url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty else {
            return "\(url) is not an absolute URL"
        }
        guard parts.user == nil, parts.password == nil else { return "a URL to fetch carries no user name or password" }
        switch scheme {
        case "https": return nil
        case "http" where isLoopback(host): return nil
        case "http": return "\(url) is plain http to another machine: use https (plain http only to this machine, 127.0.0.1 or ::1)"
        default: return "\(url): only https URLs are fetched"
        }
    }

    /// This machine by name or loopback address.
    package static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Refused before a request is made: what `problem(with:)` says.
    public struct RefusedURL: Error, CustomStringConvertible {
        public let description: String
    }

    /// Throws `RefusedURL` unless chatterd may fetch `url`.
    package static func check(_ url: String) throws(RefusedURL) {
        if let problem = problem(with: url) { throw RefusedURL(description: problem) }
    }
}
