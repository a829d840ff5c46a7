import Foundation

/// One HTTP exchange as the SDK sees it: small value types, so transports (URLSession in apps,
/// async-http-client in the terminal client, counting wrappers in tests) are easy to swap.
public struct TransportRequest: Sendable, Equatable {
    /// The HTTP method, such as `GET`.
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// Header fields by name; the SDK sets `Accept`, `User-Agent`, `Content-Type` and `Authorization`.
    public var headers: [String: String]
    /// The JSON body, or nil.
    public var body: Data?

    /// A request; the SDK builds these, a transport only sends them.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What the server answered, whatever the status.
public struct TransportResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields by name. Names may come in any case; `URLSessionTransport` lower-cases them.
    public var headers: [String: String]
    /// The body; empty when there was none.
    public var body: Data

    /// An answer, as a transport (or a test double) returns it.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends a request and returns whatever the server answered, any status. It throws only when no
/// answer arrived (connection, TLS, timeout), which the SDK reports as a network error and never as a
/// reason to sign the user out.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the answer, whatever its status. Throws only when no answer arrived.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
