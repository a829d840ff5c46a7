import Crypto
import Foundation
import Hummingbird
import Logging
import Synchronization

/// A local stand-in for Apple's token service (`https://appleid.apple.com/auth/token` and `/auth/revoke`),
/// checking each request as Apple documents it, so a mistake in chatterd's client secret or form fails here as
/// it would at Apple:
/// - "Creating a client secret"
///   (https://developer.apple.com/documentation/accountorganizationaldatasharing/creating-a-client-secret):
///   a JWT with header `alg` ES256 and `kid` the key ID, signed by the team's key; claims `iss` the team ID,
///   `iat`, `exp` no more than 15,777,000 s after `iat`, `aud` `https://appleid.apple.com`, `sub` the
///   `client_id`.
/// - "Generate and validate tokens" (https://developer.apple.com/documentation/sign_in_with_apple/generate_and_validate_tokens):
///   a form-encoded POST of `client_id`, `client_secret`, `code`, `grant_type=authorization_code`; a code
///   works once, for the client it was issued to, within five minutes; the answer is a `TokenResponse`
///   (`access_token`, `token_type`, `expires_in`, `refresh_token`, `id_token`); a refusal is a 400 with an
///   `ErrorResponse` (`invalid_client`, `invalid_grant`, `invalid_request`, `unsupported_grant_type`).
/// - "Revoke tokens" (https://developer.apple.com/documentation/sign_in_with_apple/revoke_tokens): a
///   form-encoded POST of `client_id`, `client_secret`, `token`, `token_type_hint`; 200 when it succeeds. A
///   token Apple does not know is answered 200 as well, as OAuth 2.0 token revocation (RFC 7009 §2.2) has it.
public final class AppleTokenService: Sendable {
    public let teamID: String
    public let keyID: String
    /// The team's key: chatterd is given its private half as a `.p8` file (`pemRepresentation`).
    public let key: P256.Signing.PrivateKey

    struct Code {
        var subject: String
        var clientID: String
        var issuedAt: Date
    }

    struct State {
        var codes: [String: Code] = [:]
        /// Refresh tokens issued, by token: their Apple ID and client.
        var issued: [String: (subject: String, clientID: String)] = [:]
        var revoked: [String] = []
        var exchanges = 0
        var refusals: [String] = []
        var unavailable = false
        var signer: (@Sendable ([String: Any]) throws -> String)?
        var now: @Sendable () -> Date = Date.init
    }

    let state = Mutex(State())

    public init(teamID: String = "TEAM123456", keyID: String = "KEY1234567") {
        self.teamID = teamID
        self.keyID = keyID
        key = P256.Signing.PrivateKey()
    }

    /// How `id_token`s are signed (the test's Apple issuer) and the clock codes expire by.
    public func use(signer: @escaping @Sendable ([String: Any]) throws -> String, now: @escaping @Sendable () -> Date) {
        state.withLock {
            $0.signer = signer
            $0.now = now
        }
    }

    /// A new authorization code for `subject`, as Apple hands one to the app with each sign-in.
    public func authorizationCode(for subject: String, clientID: String) -> String {
        let code = "c" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") + ".0.prfz." + String(UUID().uuidString.prefix(8))
        state.withLock { $0.codes[code] = Code(subject: subject, clientID: clientID, issuedAt: $0.now()) }
        return code
    }

    /// While true, every request is answered 503, as when Apple is unreachable.
    public func setUnavailable(_ unavailable: Bool) { state.withLock { $0.unavailable = unavailable } }

    public var exchanges: Int { state.withLock { $0.exchanges } }
    /// The refresh tokens revoked, in order.
    public var revoked: [String] { state.withLock { $0.revoked } }
    /// The refresh tokens issued for `subject`.
    public func issued(for subject: String) -> [String] { state.withLock { $0.issued.filter { $0.value.subject == subject }.map(\.key) } }
    /// The `error` of every refusal, in order.
    public var refusals: [String] { state.withLock { $0.refusals } }

    /// Runs the service on an ephemeral loopback port for the duration of `body`, which gets its base URL.
    public func run<T: Sendable>(_ body: @Sendable (_ url: String) async throws -> T) async throws -> T {
        let router = Router()
        router.post("auth/token") { request, _ in try await self.answer(request, self.token) }
        router.post("auth/revoke") { request, _ in try await self.answer(request, self.revoke) }
        return try await LiveService.run(router, label: "apple-token-service") { port in try await body("http://127.0.0.1:\(port)") }
    }

    struct Refusal: Error { var error: String }

    private func answer(_ request: Request, _ handle: @Sendable ([String: String]) throws(Refusal) -> [String: Any]?) async throws -> Response {
        if state.withLock({ $0.unavailable }) { return Response(status: .serviceUnavailable) }
        let body = try await request.body.collect(upTo: 64 * 1024)
        do {
            guard request.headers[.contentType] == "application/x-www-form-urlencoded" else { throw Refusal(error: "invalid_request") }
            let form = try Self.form(String(buffer: body))
            guard let answer = try handle(form) else { return Response(status: .ok) }
            let json = try JSONSerialization.data(withJSONObject: answer)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
        } catch {
            let code = (error as? Refusal)?.error ?? "invalid_request"
            state.withLock { $0.refusals.append(code) }
            let json = try JSONSerialization.data(withJSONObject: ["error": code])
            return Response(status: .badRequest, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
        }
    }

    private func token(_ form: [String: String]) throws(Refusal) -> [String: Any]? {
        guard form["grant_type"] == "authorization_code" else { throw Refusal(error: "unsupported_grant_type") }
        guard let clientID = form["client_id"], let code = form["code"] else { throw Refusal(error: "invalid_request") }
        try checkSecret(form["client_secret"], clientID: clientID)
        return try state.withLock { state throws(Refusal) -> [String: Any] in
            state.exchanges += 1
            // A code works once, for its own client, within five minutes.
            guard let issued = state.codes.removeValue(forKey: code), issued.clientID == clientID,
                state.now().timeIntervalSince(issued.issuedAt) <= 300
            else { throw Refusal(error: "invalid_grant") }
            let refresh = "r" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") + ".0.rrtq." + String(UUID().uuidString.prefix(6))
            state.issued[refresh] = (issued.subject, clientID)
            let now = Int(state.now().timeIntervalSince1970)
            guard let signer = state.signer,
                let idToken = try? signer([
                    "iss": "https://appleid.apple.com", "aud": clientID, "sub": issued.subject, "iat": now, "exp": now + 600,
                    "at_hash": "x", "auth_time": now,
                ])
            else { throw Refusal(error: "invalid_request") }
            return ["access_token": "a" + UUID().uuidString, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh, "id_token": idToken]
        }
    }

    private func revoke(_ form: [String: String]) throws(Refusal) -> [String: Any]? {
        guard let clientID = form["client_id"], let token = form["token"] else { throw Refusal(error: "invalid_request") }
        guard [nil, "refresh_token", "access_token"].contains(form["token_type_hint"]) else { throw Refusal(error: "invalid_request") }
        try checkSecret(form["client_secret"], clientID: clientID)
        state.withLock { state in
            if let issued = state.issued[token], issued.clientID == clientID {
                state.issued[token] = nil
                state.revoked.append(token)
            }
        }
        return nil
    }

    /// The client secret as "Creating a client secret" describes it; `invalid_client` otherwise.
    private func checkSecret(_ secret: String?, clientID: String) throws(Refusal) {
        let invalid = Refusal(error: "invalid_client")
        guard let parts = secret?.split(separator: ".", omittingEmptySubsequences: false), parts.count == 3,
            let headerBytes = base64URLDecoded(String(parts[0])), let claimBytes = base64URLDecoded(String(parts[1])),
            let signatureBytes = base64URLDecoded(String(parts[2])),
            let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimBytes) as? [String: Any]
        else { throw invalid }
        guard header["alg"] as? String == "ES256", header["kid"] as? String == keyID else { throw invalid }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw invalid }
        let now = state.withLock { $0.now() }.timeIntervalSince1970
        guard claims["iss"] as? String == teamID, claims["aud"] as? String == "https://appleid.apple.com", claims["sub"] as? String == clientID,
            let iat = claims["iat"] as? Double, let exp = claims["exp"] as? Double,
            iat <= now + 60, exp > now, exp - iat <= 15_777_000
        else { throw invalid }
    }

    /// `application/x-www-form-urlencoded`, strictly: a pair without `=`, a bad escape or a repeated name is refused.
    static func form(_ text: String) throws(Refusal) -> [String: String] {
        var form: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let name = decode(parts[0]), let value = decode(parts[1]), form[name] == nil else {
                throw Refusal(error: "invalid_request")
            }
            form[name] = value
        }
        return form
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
