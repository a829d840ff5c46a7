import Foundation
import Observation

/// The course app's screens (F1): the timeline, posting, Google sign-in through `/adduser`, and the
/// launch advisory. Posting without a valid session asks for sign-in, waits for it, then completes the
/// same post; cancelling the sign-in fails the post cleanly.
@MainActor @Observable
public final class ChattFlow {
    /// What to tell the user at launch about the stored session.
    public enum Advisory: Equatable, Sendable {
        /// "Signed in as …": the stored session is still valid.
        case sessionAvailable(username: String)
        /// "Your session has expired; sign in to post."
        case sessionExpired

        /// The sentence a screen shows.
        public var message: String {
            switch self {
            case .sessionAvailable(let username): return "Signed in as \(username)."
            case .sessionExpired: return "Your session has expired; sign in to post."
            }
        }
    }

    /// The timeline, oldest first, as `/getchatts` returns it.
    public private(set) var chatts: [ChattRow] = []
    /// Set by `launch()`; `nil` when there is nothing to say (no stored session).
    public private(set) var advisory: Advisory?
    /// The message being written; `postDraft()` sends it and clears it once posted.
    public var draft = ""
    /// The UI presents Google sign-in while this is true, then calls `finishSignIn` or `cancelSignIn`.
    public private(set) var isSignInRequested = false
    /// Google vouched for an account with a second factor: the sign-in sheet shows this step for its code.
    public private(set) var secondStep: SecondStepForm?
    /// Whether the sign-in sheet shows: asked for by a post, or waiting for the second step.
    public var showsSignInSheet: Bool { isSignInRequested || secondStep != nil }
    /// The sign-in sheet is waiting for the app's Google Sign-In.
    public private(set) var isSigningIn = false
    /// A post is on its way (signing in first, when it had to).
    public private(set) var isPosting = false
    /// The last failure, for a banner; `nil` after a success or a cancellation.
    public private(set) var errorMessage: String?
    /// The signed-in user's display name, once known.
    public private(set) var username: String?

    /// Which session a Google sign-in here gets.
    public enum GoogleSession: Sendable, Equatable {
        /// The course API's chatterID (`/adduser`, F1): a fixed lifetime, no refresh, posting only.
        case course
        /// A native session (`/v1/auth/google`): it refreshes, lists and revokes, opens the web pages, deletes the
        /// account. What an app that is not the course app wants.
        case native
    }

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let clientID: String
    @ObservationIgnored let googleSession: GoogleSession
    @ObservationIgnored private var pendingSignIn: CheckedContinuation<String?, Never>?
    /// Why the provider gave no token, told to the waiting post instead of "cancelled".
    @ObservationIgnored private var signInFailure: String?

    /// `clientID` is the app's Google OAuth client ID, sent with every ID token; `googleSession` chooses the
    /// course's chatterID (the default, as F1 specifies) or a native session.
    public init(client: ChatterClient, clientID: String, googleSession: GoogleSession = .course) {
        self.client = client
        self.clientID = clientID
        self.googleSession = googleSession
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

    /// Fetches the timeline (no sign-in needed).
    public func reload() async {
        do {
            chatts = try await client.courseChatts()
            errorMessage = nil
        } catch {
            errorMessage = ChatterError.banner(for: error)
        }
    }

    /// Whether the composer's send button works: something to say, and no post on its way.
    public var canPost: Bool { !isPosting && !draft.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }

    /// Posts the draft (signing in first if needed) and clears it once posted; a failed post keeps it.
    @discardableResult
    public func postDraft() async -> Bool {
        guard canPost else { return false }
        let message = draft
        guard await post(message) else { return false }
        if draft == message { draft = "" }
        return true
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
                errorMessage = ChatterError.banner(for: error)
                return false
            }
        } catch {
            errorMessage = ChatterError.banner(for: error)
            return false
        }
        await reload()
        return true
    }

    /// Signs in with a Google ID token the UI obtained, outside of a post.
    public func signIn(idToken: String) async -> Bool {
        do {
            switch googleSession {
            case .course: username = try await client.addUser(clientID: clientID, idToken: idToken).username
            case .native: username = try await client.signInWithGoogle(idToken: idToken, clientID: clientID).username
            }
            advisory = nil
            return true
        } catch let error as ChatterError where error.secondFactorChallenge != nil {
            return await secondStep(error.secondFactorChallenge)
        } catch {
            errorMessage = ChatterError.banner(for: error)
            return false
        }
    }

    /// Google vouched for an account with a second factor (a native session: the course API has no second step).
    /// The sheet shows `secondStep` and the waiting post continues once its code is accepted; Cancel ends it.
    private func secondStep(_ challenge: SecondFactorChallenge?) async -> Bool {
        guard let challenge else { return false }
        let session = await withCheckedContinuation { continuation in
            let step = SecondStepForm(client: client, challenge: challenge)
            step.onFinish = { continuation.resume(returning: $0) }
            secondStep = step
        }
        secondStep = nil
        guard let session else {
            errorMessage = "Sign-in was not finished; the chatt was not posted."
            return false
        }
        username = session.username
        advisory = nil
        return true
    }

    /// The UI hands over the ID token from Google Sign-In; a waiting post continues.
    public func finishSignIn(idToken: String) {
        isSignInRequested = false
        pendingSignIn?.resume(returning: idToken)
        pendingSignIn = nil
    }

    /// The sign-in sheet's button: asks the app's Google Sign-In for an ID token and hands it over. When
    /// the provider throws, a waiting post fails, saying why unless the user cancelled.
    public func completeSignIn(using idToken: @MainActor () async throws -> String) async {
        guard !isSigningIn else { return }
        isSigningIn = true
        defer { isSigningIn = false }
        do {
            finishSignIn(idToken: try await idToken())
        } catch {
            signInFailure = ChatterError.banner(for: error)
            cancelSignIn()
        }
    }

    /// The user closed the sign-in sheet; a waiting post fails without posting.
    public func cancelSignIn() {
        secondStep?.startOver()
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
            errorMessage = signInFailure.map { "Sign-in failed: \($0)" } ?? "Sign-in was cancelled; the chatt was not posted."
            signInFailure = nil
            return false
        }
        return await signIn(idToken: token)
    }
}
