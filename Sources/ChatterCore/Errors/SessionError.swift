/// Why a request's session, token or hand-off link was refused (`SessionError+HTTP` makes the answers).
public enum SessionError: Error, Equatable {
    /// No credentials on a route that needs a session.
    case authenticationRequired
    case accessTokenExpired
    case invalidAccessToken
    case invalidRefreshToken
    /// A retired refresh token came back: its session is ended.
    case refreshTokenReused
    /// A course chatterID that is unknown.
    case unknownChatterID
    /// A course chatterID past its lifetime.
    case expiredChatterID
    /// The session's account was deleted while the request ran.
    case accountGone
    /// The signed-in user has no session by that id.
    case noSuchSession
    /// A web-session link that is expired or used.
    case invalidHandoff
}
