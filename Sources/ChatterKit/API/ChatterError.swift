import Foundation

/// Why the SDK signed a user out. Only answers from the server (and the user's own sign-out) lead here;
/// a network error or locked storage never does.
public enum SignOutReason: String, Sendable, Equatable, Codable {
    /// The user signed out (this device or all devices).
    case userRequested
    /// The server no longer knows the session (revoked elsewhere, deleted account, unknown token).
    case revoked
    /// A retired refresh token was presented: the server revoked the whole session family.
    case refreshTokenReused
    /// The session reached its end (course chatterID lifetime, or the refresh token's absolute end).
    case expired
    /// The user deleted their account.
    case accountDeleted
    /// The user stopped using Sign in with Apple with this app, or Apple no longer knows the credential
    /// (`SessionManager.checkAppleCredential(with:)`).
    case appleIDRevoked
}

/// Every error the SDK throws. Only `.signedOut` means the session is gone: after `.network`, `.storage`,
/// `.rateLimited` or `.server` the user is still signed in, and the UI can offer to try again.
public enum ChatterError: LocalizedError, Sendable, Equatable {
    /// There is no session; sign in first.
    case notSignedIn
    /// The server ended the session; it has been deleted on this device.
    case signedOut(SignOutReason)
    /// The server answered with an error. `body` is its JSON error when it sent one.
    case server(status: Int, body: ErrorBody?)
    /// Too many attempts (429): try again after `retryAfter` seconds, as the server's Retry-After says.
    case rateLimited(retryAfter: Int, body: ErrorBody?)
    /// No answer arrived (connection refused, TLS failure, timeout). The session is untouched.
    case network(String)
    /// Secure storage failed; see `StorageError` for "unavailable right now" versus "denied".
    case storage(StorageError)
    /// The server answered 2xx with a body this SDK cannot read.
    case unreadableResponse(String)
    /// The user cancelled (a sign-in sheet, a prompt), or the task making the request was cancelled
    /// (a SwiftUI `.task` whose view went away): nothing to show.
    case cancelled
    /// A re-authentication proved another account than the signed-in one (another Google account, another
    /// address): the session is unchanged, and the other account's new session was ended at once.
    case otherAccount

    /// The server's human-readable message, or a short description for a person.
    public var message: String {
        switch self {
        case .notSignedIn: return "Not signed in."
        case .signedOut(.userRequested): return "Signed out."
        case .signedOut(.refreshTokenReused): return "The session was revoked because an old refresh token was used again. Sign in again."
        case .signedOut(.expired): return "The session has expired. Sign in again."
        case .signedOut(.revoked): return "The session is no longer valid. Sign in again."
        case .signedOut(.accountDeleted): return "The account has been deleted."
        case .signedOut(.appleIDRevoked): return "Sign in with Apple was turned off for this app. Sign in again."
        case .server(let status, let body): return body?.message ?? "The server answered \(status)."
        case .rateLimited(let seconds, let body): return body?.message ?? "Too many attempts; try again in \(seconds) seconds."
        case .network(let text): return "Cannot reach the server: \(text)"
        case .storage(let error): return error.description
        case .unreadableResponse(let text): return "Unexpected answer from the server: \(text)"
        case .cancelled: return "Cancelled."
        case .otherAccount: return "That is another account. Confirm with the account you are signed in to."
        }
    }

    /// A sentence for an error banner, whatever the error.
    public static func describe(_ error: any Error) -> String {
        (error as? ChatterError)?.message ?? error.localizedDescription
    }

    /// The server's `error` code, when it answered with one.
    public var code: String? {
        switch self {
        case .server(_, let body), .rateLimited(_, let body): return body?.error
        default: return nil
        }
    }

    /// `message`, so `localizedDescription` and SwiftUI's error alerts say what happened.
    public var errorDescription: String? { message }
}
