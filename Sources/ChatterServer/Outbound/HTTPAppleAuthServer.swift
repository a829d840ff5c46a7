import AsyncHTTPClient
import ChatterCore
import ChatterDomain
import Foundation
import NIOCore
import NIOHTTP1

/// Apple's token service over HTTPS (`https://appleid.apple.com` unless `--apple-auth-url` names another),
/// under `OutboundHTTP`'s policy: a redirect fails the request, so the client secret and the code go nowhere else.
/// https://developer.apple.com/documentation/sign_in_with_apple/generate_and_validate_tokens and
/// https://developer.apple.com/documentation/sign_in_with_apple/revoke_tokens
public struct HTTPAppleAuthServer: AppleAuthServer {
    public var baseURL: String
    package var client: HTTPClient
    package var timeout: TimeAmount

    public init(baseURL: String = IdentityProvider.appleAuthURL, client: HTTPClient = OutboundHTTP.client, timeout: TimeAmount = .seconds(5)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.timeout = timeout
    }

    public func exchange(code: String, clientID: String, clientSecret: String) async throws(AppleAuthError) -> AppleTokenGrant {
        let body = try await post(
            "/auth/token", ["client_id": clientID, "client_secret": clientSecret, "code": code, "grant_type": "authorization_code"])
        // fail-closed: an answer that is not a token response throws unavailable: no grant is kept
        guard let grant = try? JSONDecoder().decode(AppleTokenGrant.self, from: Data(body)) else {
            throw .unavailable("the token endpoint's answer is not a token response")
        }
        return grant
    }

    public func revoke(refreshToken: String, clientID: String, clientSecret: String) async throws(AppleAuthError) {
        _ = try await post(
            "/auth/revoke", ["client_id": clientID, "client_secret": clientSecret, "token": refreshToken, "token_type_hint": "refresh_token"])
    }

    private struct ErrorResponse: Decodable { var error: String }

    private func post(_ path: String, _ form: [String: String]) async throws(AppleAuthError) -> [UInt8] {
        do { try OutboundHTTP.check(baseURL + path) } catch { throw .unavailable(error.description) }
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let status: HTTPResponseStatus
        let body: [UInt8]
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = response.status
            // Apple's answers are a few KiB at most.
            body = Array(buffer: try await response.body.collect(upTo: 64 * 1024))
        } catch {
            throw .unavailable("\(path): \(error)")
        }
        guard status == .ok else {
            // fail-closed: an unreadable refusal throws unavailable instead of refused; an error is thrown either way
            if status.code < 500, let refusal = try? JSONDecoder().decode(ErrorResponse.self, from: Data(body)) {
                // Only OAuth's short codes reach the log; anything else Apple might echo stays out.
                throw .refused(String(refusal.error.prefix(40).filter { $0.isLetter || $0 == "_" }))
            }
            throw .unavailable("\(path) answered \(status.code)")
        }
        return body
    }
}

/// `application/x-www-form-urlencoded` as the WHATWG URL standard writes it: every byte but the unreserved
/// ones percent-encoded (a client secret's `.` and `-` pass, a code's `+` or `=` would not).
package enum FormEncoding {
    package static func encode(_ form: [String: String]) -> String {
        form.sorted { $0.key < $1.key }.map { "\(escape($0.key))=\(escape($0.value))" }.joined(separator: "&")
    }

    package static let unreserved = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".utf8)

    package static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
