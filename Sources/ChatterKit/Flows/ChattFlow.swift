import Foundation
import Observation

/// The course app's screens (F1): the timeline, posting, Google sign-in through `/adduser`, and the
/// launch advisory. Posting without a valid session asks for sign-in, waits for it, then completes the
/// same post; cancelling the sign-in fails the post cleanly.
@MainActor @Observable
public final class ChattFlow {
    public enum Advisory: Equatable, Sendable {
        /// "Signed in as …": the stored session is still valid.
        case sessionAvailable(username: String)
        /// "Your session has expired; sign in to post."
        case sessionExpired
    }

    public private(set) var chatts: [ChattRow] = []
    public private(set) var advisory: Advisory?
    /// The UI presents Google sign-in while this is true, then calls `finishSignIn` or `cancelSignIn`.
    public private(set) var isSignInRequested = false
    public private(set) var isPosting = false
    public private(set) var errorMessage: String?
    public private(set) var username: String?

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let clientID: String
    @ObservationIgnored private var pendingSignIn: CheckedContinuation<String?, Never>?

    /// `clientID` is the app's Google OAuth client ID, sent with every ID token.
    public init(client: ChatterClient, clientID: String) {
        self.client = client
        self.clientID = clientID
    }

    /// Restores the stored session and sets the advisory.
    public func launch() async {
        switch await client.sessions.start() {
        case .valid(let session), .expiring(let session):
            username = session.username
            advisory = .sessionAvailable(username: session.username)
        case .expired:
            advisory = .sessionExpired
        case .signedOut, .storageUnavailable:
            advisory = nil
        }
    }

    public func reload() async {
        do {
            chatts = try await client.courseChatts()
            errorMessage = nil
        } catch {
            errorMessage = ChatterError.describe(error)
        }
    }

    /// Posts `message`, signing in first when there is no valid session. Returns whether it was posted.
    @discardableResult
    public func post(_ message: String) async -> Bool {
        errorMessage = nil
        isPosting = true
        defer { isPosting = false }
        if await needsSignIn() {
            guard await signIn() else { return false }
        }
        do {
            try await client.post(message)
        } catch ChatterError.signedOut {
            // The server no longer knows the session: sign in once more and post again.
            guard await signIn() else { return false }
            do { try await client.post(message) } catch {
                errorMessage = ChatterError.describe(error)
                return false
            }
        } catch {
            errorMessage = ChatterError.describe(error)
            return false
        }
        await reload()
        return true
    }

    /// Signs in with a Google ID token the UI obtained, outside of a post.
    public func signIn(idToken: String) async -> Bool {
        do {
            username = try await client.addUser(clientID: clientID, idToken: idToken).username
            advisory = nil
            return true
        } catch {
            errorMessage = ChatterError.describe(error)
            return false
        }
    }

    /// The UI hands over the ID token from Google Sign-In; a waiting post continues.
    public func finishSignIn(idToken: String) {
        isSignInRequested = false
        pendingSignIn?.resume(returning: idToken)
        pendingSignIn = nil
    }

    /// The user closed the sign-in sheet; a waiting post fails without posting.
    public func cancelSignIn() {
        isSignInRequested = false
        pendingSignIn?.resume(returning: nil)
        pendingSignIn = nil
    }

    func needsSignIn() async -> Bool {
        // An expiring session is still usable: a native one refreshes on its way out.
        switch await client.sessions.status() {
        case .valid, .expiring: return false
        case .expired, .signedOut, .storageUnavailable: return true
        }
    }

    private func signIn() async -> Bool {
        // A second post while one waits shares the same sign-in.
        cancelSignIn()
        isSignInRequested = true
        let token = await withCheckedContinuation { pendingSignIn = $0 }
        guard let token else {
            errorMessage = "Sign-in was cancelled; the chatt was not posted."
            return false
        }
        return await signIn(idToken: token)
    }
}
