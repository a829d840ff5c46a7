import Foundation

/// JSON over an `HTTPTransport` against one chatterd. Stateless: tokens are passed in by the caller
/// (the session manager), so this type can be used before anyone signs in.
public struct ChatterAPI: Sendable {
    /// The server's root, such as `https://chatter.example.com`; route paths are appended to it, with or without a
    /// trailing slash.
    public let baseURL: URL
    /// Carries every request. Certificate pinning and timeouts are set up there, not here.
    public let transport: any HTTPTransport
    /// Sent as `User-Agent`, which the server shows in the session list; `defaultUserAgent` names the app and device.
    public var userAgent: String
    /// Told of every exchange once it ends, for an app's own logging (`os.Logger`, a crash reporter); nil for none.
    public var log: (@Sendable (RequestLog) -> Void)?
    /// Proofs of this device's key (DPoP, RFC 9449) for the native API, or nil to send bearer tokens.
    /// `ChatterClient(api:store:coordinator:deviceKeys:)` sets it; a session signed in with proofs is bound to the key.
    public var dpop: DPoPProofs?
    /// The attested install's assertions (App Attest), sent with each request that starts a session;
    /// `ChatterClient(api:store:coordinator:deviceKeys:appAttest:)` sets it.
    var vouching: AppAttestVouching?

    /// A client for the chatterd at `baseURL`. The default transport uses `URLSession.shared`; pass a
    /// `URLSessionTransport` over a session of your own to pin the server's key.
    public init(baseURL: URL, transport: any HTTPTransport = URLSessionTransport(), userAgent: String = ChatterAPI.defaultUserAgent) {
        self.baseURL = baseURL
        self.transport = transport
        self.userAgent = userAgent
    }

    func url(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path) ?? baseURL
    }

    /// Sends `body` as JSON and decodes a 2xx answer as `Response`; any other status becomes
    /// `ChatterError.server` with the server's JSON error. Every error thrown is a `ChatterError`.
    public func send<Response: Decodable>(
        _ method: String, _ path: String, body: (any Encodable)? = nil, bearer: String? = nil,
        as type: Response.Type = Response.self
    ) async throws -> Response {
        let response = try await exchange(method, path, body: body, bearer: bearer)
        if Response.self == EmptyResponse.self, response.body.isEmpty, let empty = EmptyResponse() as? Response { return empty }
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch {
            throw ChatterError.unreadableResponse("\(method) \(path): \(Self.describe(error))")
        }
    }

    /// The raw answer of a 2xx exchange; non-2xx statuses are thrown as `ChatterError.server`.
    public func exchange(_ method: String, _ path: String, body: (any Encodable)? = nil, bearer: String? = nil)
        async throws -> TransportResponse
    {
        var headers = ["Accept": "application/json", "User-Agent": userAgent]
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            do { data = try JSONEncoder().encode(body) } catch { throw ChatterError.unreadableResponse("cannot encode the request: \(error)") }
        }
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        // A proof goes with a token, and to the routes that issue tokens (a sign-in binds its session to the key); the
        // course API reads none, and a public read (the timeline) needs none.
        let proofs = path.hasPrefix("/v1/") && (bearer != nil || path.hasPrefix("/v1/auth/")) ? dpop : nil
        if let bearer, proofs != nil { headers["Authorization"] = "DPoP \(bearer)" }
        let route = String(path.prefix { $0 != "?" })
        // An attested install vouches for each sign-in: an assertion over a fresh challenge and this request's DPoP key.
        let vouching = method == "POST" && AppAttestAssertion.routes.contains(route) ? vouching : nil
        var assertions = 0
        var response: TransportResponse
        var failed: ErrorBody?
        var started = ContinuousClock.now
        var attempt = 0
        var nonceRetried = false
        while true {
            attempt += 1
            // Before the proof: a first sign-in attests the install on the way (Apple's servers, seconds), which must not
            // age the proof or its nonce.
            if let vouching, headers[AppAttestAssertion.header] == nil, assertions < 2 {
                assertions += 1
                // fail-closed: a key whose thumbprint cannot be read makes no proof either; without one there is nothing to vouch for
                let thumbprint = proofs == nil ? nil : try? await proofs?.thumbprint()
                if proofs == nil || thumbprint != nil { headers[AppAttestAssertion.header] = try await vouching.header(thumbprint: thumbprint) }
            }
            if let proofs {
                do {
                    headers["DPoP"] = try await proofs.proof(method, url(path), accessToken: bearer)
                } catch {
                    throw Self.failure(error)
                }
            }
            started = ContinuousClock.now
            do {
                response = try await transport.send(TransportRequest(method: method, url: url(path), headers: headers, body: data))
            } catch {
                log?(RequestLog(method: method, path: route, status: nil, error: nil, duration: ContinuousClock.now - started))
                throw Self.failure(error)
            }
            proofs?.remember(response.headers)
            failed = (200..<300).contains(response.status) ? nil : try? JSONDecoder().decode(ErrorBody.self, from: response.body)
            // The server wants its nonce in the proof (RFC 9449 §8): it refused the proof before any route ran, so the
            // request is sent again with the nonce it just gave, once.
            let wantsNonce = proofs != nil && !nonceRetried && failed?.code == .useDPoPNonce
            // chatterd refused the assertion before the route ran (a counter overtaken by another of this install's
            // sign-ins, a key it no longer knows): once more with a new one, then without.
            let refusedAssertion = headers[AppAttestAssertion.header] != nil && failed?.code == .invalidAppAttest
            guard wantsNonce || refusedAssertion else { break }
            nonceRetried = nonceRetried || wantsNonce
            if refusedAssertion {
                headers[AppAttestAssertion.header] = nil
                await vouching?.refused(failed)
            }
            logExchange(method, route, response, failed, since: started)
        }
        logExchange(method, route, response, failed, since: started)
        guard (200..<300).contains(response.status) else {
            let body = failed
            if response.status == 429 {
                let header = response.headers.first { $0.key.lowercased() == "retry-after" }?.value
                throw ChatterError.rateLimited(retryAfter: header.flatMap { Int($0) } ?? 60, body: body)
            }
            throw ChatterError.server(status: response.status, body: body)
        }
        return response
    }

    /// Tells `log` of one answer. The code as the wire defines them (letters, digits, `_`; short): whatever else a
    /// proxy answers is not logged.
    private func logExchange(_ method: String, _ route: String, _ response: TransportResponse, _ failed: ErrorBody?, since started: ContinuousClock.Instant) {
        guard let log else { return }
        let code = failed.map(\.error).flatMap { text in
            text.count <= 64 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } ? text : nil
        }
        log(RequestLog(method: method, path: route, status: response.status, error: code, duration: ContinuousClock.now - started))
    }

    /// A transport's failure as the `ChatterError` callers get.
    static func failure(_ error: any Error) -> ChatterError {
        if isCancellation(error) { return .cancelled }
        if let error = error as? ChatterError { return error }
        return .network(describe(error))
    }

    /// URLSession reports a cancelled task as `URLError(.cancelled)`, not `CancellationError`: a SwiftUI
    /// `.task` that goes away must read as cancelled, not as "Cannot reach the server". Any failure of a
    /// task that has been cancelled is its cancellation. `URLError(.cancelled)` in a task nobody cancelled
    /// is not: URLSession also says it when a delegate refused the server (a pin that does not match), and
    /// the user must hear about that.
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        return Task.isCancelled && !(error is ChatterError)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .keyNotFound(let key, _): return "missing field \"\(key.stringValue)\""
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.codingPath.isEmpty
                    ? "not the expected JSON" : "field \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" is invalid"
            @unknown default: return "not the expected JSON"
            }
        }
        if let error = error as? URLError { return error.localizedDescription }
        return String(describing: error)
    }
}
