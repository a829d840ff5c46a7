import AsyncHTTPClient
import ChatterCore
import Foundation
import NIOCore
import NIOHTTP1

/// Where a provider's JSON Web Key Set comes from.
public protocol JWKSSource: Sendable {
    /// The key set's JSON and how long it may be cached, when the source says.
    func fetch() async throws -> (json: [UInt8], maxAge: Double?)
    var description: String { get }
}

/// A provider's published JWKS over HTTPS (`OutboundHTTP`'s policy: no redirects, no plain http to another
/// machine), honouring its `Cache-Control: max-age`.
public struct HTTPJWKSSource: JWKSSource {
    public var url: String
    package var client: HTTPClient
    package var timeout: TimeAmount

    public init(url: String, client: HTTPClient = OutboundHTTP.client, timeout: TimeAmount = .seconds(10)) {
        self.url = url
        self.client = client
        self.timeout = timeout
    }

    public var description: String { url }

    public func fetch() async throws -> (json: [UInt8], maxAge: Double?) {
        do { try OutboundHTTP.check(url) } catch { throw JWKSFetchError(reason: error.description) }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: timeout)
        guard response.status == .ok else {
            throw JWKSFetchError(reason: "\(url) answered \(response.status.code)")
        }
        // Real key sets are a few KiB; refuse to buffer anything absurd.
        let body = try await response.body.collect(upTo: 1 << 20)
        let maxAge = response.headers["Cache-Control"].lazy.compactMap(Self.maxAge(fromCacheControl:)).first
        return (Array(buffer: body), maxAge)
    }

    /// Keys are cached at most a day, whatever the header says: an endless `max-age` (`1e309`) would keep
    /// rotated-out keys forever. `max-age` is a number of seconds (RFC 9111 §1.2.2): `nan`, `inf` and
    /// negative values are not.
    package static let longestMaxAge: Double = 86_400

    package static func maxAge(fromCacheControl value: String) -> Double? {
        for directive in value.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Double(parts[1]), seconds.isFinite, seconds >= 0 {
                return min(seconds, longestMaxAge)
            }
        }
        return nil
    }
}

/// A JWKS read from a file: for `chatterd check-token --jwks FILE` and for offline deployments.
public struct FileJWKSSource: JWKSSource {
    public var path: String

    public init(path: String) { self.path = path }

    public var description: String { path }

    public func fetch() async throws -> (json: [UInt8], maxAge: Double?) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JWKSFetchError(reason: "cannot read \(path)")
        }
        return (Array(data), nil)
    }
}

public struct JWKSFetchError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
