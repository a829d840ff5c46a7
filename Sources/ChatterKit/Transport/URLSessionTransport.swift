import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport for apps: URLSession, whose TLS trust (and, on Apple platforms, pinning through
/// a session delegate) the app configures on the session it passes in.
public struct URLSessionTransport: HTTPTransport {
    /// The session requests go through; give it a `PinnedSessionDelegate` to pin the server's key.
    public let session: URLSession
    /// Seconds a request may take before it fails as a network error.
    public var timeout: TimeInterval

    /// A transport over `session` (`URLSession.shared` by default) with a `timeout` in seconds for each request.
    public init(session: URLSession = .shared, timeout: TimeInterval = 30) {
        self.session = session
        self.timeout = timeout
    }

    /// Sends the request with `session`; header names in the answer are lower-cased. Throws URLSession's error when
    /// no answer arrives.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled && refusesUnpinnedServers {
            // The pinning delegate cancelled the TLS challenge: the server's key matches no pin.
            throw URLError(.serverCertificateUntrusted)
        }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// Whether the session's delegate pins the server's key, so that a cancelled challenge means a refused key.
    var refusesUnpinnedServers: Bool {
        #if canImport(Security)
            return session.delegate is PinnedSessionDelegate
        #else
            return false
        #endif
    }
}
