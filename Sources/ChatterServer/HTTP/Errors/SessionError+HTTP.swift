import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension SessionError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .authenticationRequired: Self.challenge(.authenticationRequired, "Sign in first: send Authorization: Bearer <access token>.")
        case .accessTokenExpired: Self.challenge(.accessTokenExpired, "The access token has expired; refresh it.")
        case .invalidAccessToken: Self.challenge(.invalidAccessToken, "The access token is not valid; sign in again.")
        case .invalidRefreshToken: APIError(.unauthorized, .invalidRefreshToken, "The refresh token is not valid; sign in again.")
        case .refreshTokenReused:
            APIError(.unauthorized, .refreshTokenReused, "This refresh token was already used; the session has been revoked. Sign in again.")
        case .unknownChatterID: Self.unknownChatterIDAnswer
        case .expiredChatterID: Self.expiredChatterIDAnswer
        case .accountGone: APIError(.unauthorized, .invalidSession, "This account no longer exists; sign in again.")
        case .noSuchSession: APIError(.notFound, .notFound, "You have no session with that id.")
        case .invalidHandoff: APIError(.unauthorized, .invalidHandoff, "This sign-in link is expired or was already used.")
        }
    }

    /// A bearer token's refusal, with the `WWW-Authenticate` challenge RFC 6750 asks for.
    static func challenge(_ code: ErrorCode, _ message: String) -> APIError {
        APIError(.unauthorized, code, message).with(.wwwAuthenticate, "Bearer error=\"invalid_token\", error_description=\"\(code.rawValue)\"")
    }

    // Encoded once: a course client with a stale chatterID sends it with every post.
    static let unknownChatterIDAnswer = APIError(.unauthorized, .invalidSession, "Unknown chatterID: sign in again with /adduser.").preEncoded()
    static let expiredChatterIDAnswer = APIError(.unauthorized, .expiredSession, "This chatterID has expired: sign in again with /adduser.").preEncoded()
}
