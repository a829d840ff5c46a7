import Foundation

/// One request as `ChatterAPI.log` reports it: what an app's logs may hold. Never a header, a body, a query
/// string or a token: chatterd's paths carry no secret, and nothing else is included.
public struct RequestLog: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP method.
    public var method: String
    /// The route's path, without a query.
    public var path: String
    /// The status, or nil when no answer came (the network failed, or the request was cancelled).
    public var status: Int?
    /// The server's error code (`invalid_credentials`, …) of an answer that is not 2xx.
    public var error: String?
    /// How long the exchange took.
    public var duration: Duration

    /// A line such as `POST /v1/auth/refresh → 200 (41 ms)`.
    public var description: String {
        let outcome = status.map(String.init) ?? "no answer"
        let milliseconds = Int(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
        return "\(method) \(path) → \(outcome)\(error.map { " \($0)" } ?? "") (\(milliseconds) ms)"
    }
}
