import ChatterCore
import Foundation

/// Where a provider's JSON Web Key Set comes from.
public protocol JWKSSource: Sendable {
    /// The key set's JSON and how long it may be cached, when the source says.
    func fetch() async throws -> (json: [UInt8], maxAge: Double?)
    var description: String { get }
}

/// A key set's `Cache-Control` header, as the HTTP source reads it.
package enum CacheControl {
    /// Keys are cached at most a day, whatever the header says: an endless `max-age` (`1e309`) would keep
    /// rotated-out keys forever. `max-age` is a number of seconds (RFC 9111 §1.2.2): `nan`, `inf` and
    /// negative values are not.
    package static let longestMaxAge: Double = 86_400

    package static func maxAge(_ value: String) -> Double? {
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

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(reason: String) {
        self.reason = reason
    }
}
