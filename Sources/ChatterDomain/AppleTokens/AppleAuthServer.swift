import ChatterCore
import Foundation

/// Apple's token service for Sign in with Apple: the authorization code an app receives is exchanged for a
/// refresh token, which chatterd keeps until the account is deleted and then revokes. Tests give a local
/// server that checks what Apple checks; chatterd talks to `HTTPAppleAuthServer` (the edge's Outbound/).
public protocol AppleAuthServer: Sendable {
    /// `POST /auth/token` with `grant_type=authorization_code`: the tokens Apple issues for `code`.
    func exchange(code: String, clientID: String, clientSecret: String) async throws(AppleAuthError) -> AppleTokenGrant
    /// `POST /auth/revoke` with `token_type_hint=refresh_token`.
    func revoke(refreshToken: String, clientID: String, clientSecret: String) async throws(AppleAuthError)
}

/// What Apple's token endpoint answers for an authorization code (its `TokenResponse`; the access token,
/// good for an hour and for nothing chatterd does, is not kept).
public struct AppleTokenGrant: Sendable, Decodable {
    /// Apple's refresh token: what revocation takes. Absent from an answer to a refresh, never from a code's.
    public var refreshToken: String?
    /// An identity token for the same Apple ID, which chatterd verifies like the app's.
    public var idToken: String

    package enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
        case idToken = "id_token"
    }
}

/// Why Apple's token service did not do what was asked.
public enum AppleAuthError: Error, Equatable, CustomStringConvertible {
    /// Apple answered with an `ErrorResponse`: `invalid_grant` (the code or token is used, expired or revoked),
    /// `invalid_client` (the client secret or client ID is wrong), and the rest of OAuth 2.0's codes.
    case refused(String)
    /// No answer, or one that is not Apple's: try again later.
    case unavailable(String)

    public var description: String {
        switch self {
        case .refused(let code): "Apple refused it: \(code)"
        case .unavailable(let reason): "Apple's token service is unavailable: \(reason)"
        }
    }
}
