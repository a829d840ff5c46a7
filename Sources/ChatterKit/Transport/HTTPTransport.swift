import Foundation

/// One HTTP exchange as the SDK sees it: small value types, so transports (URLSession in apps,
/// async-http-client in the terminal client, counting wrappers in tests) are easy to swap.
public struct TransportRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct TransportResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

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
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
