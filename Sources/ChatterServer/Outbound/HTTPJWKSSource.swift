import AsyncHTTPClient
import ChatterCore
import ChatterDomain
import Foundation
import NIOCore
import NIOHTTP1

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
        let maxAge = response.headers["Cache-Control"].lazy.compactMap(CacheControl.maxAge).first
        return (Array(buffer: body), maxAge)
    }
}
