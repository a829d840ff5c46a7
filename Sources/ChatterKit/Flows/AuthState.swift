import Foundation
import Observation

/// The session as the UI follows it (F5): a root view switches on `phase` to show sign-in, the app, or a
/// "sign in again" prompt. It follows `SessionManager`'s events, so every sign-in, refresh and sign-out
/// anywhere in the app shows at once.
@MainActor @Observable
public final class AuthState {
    /// Where the user stands.
    public enum Phase: Equatable, Sendable {
        /// Storage has not been read yet: show nothing (or a splash), never the sign-in screen.
        case starting
        /// No session. `reason` says why a session ended, `nil` when there was none.
        case signedOut(reason: SignOutReason?)
        /// A usable session (an access token that lapsed refreshes on the next request).
        case signedIn(AuthSession)
        /// The stored session is over: ask the user to sign in again.
        case expired(AuthSession)
        /// Storage cannot be read now (the device is locked): the user is not signed out; wait.
        case storageUnavailable
    }

    /// The current phase; `.starting` until `run()` has read storage.
    public private(set) var phase = Phase.starting
    /// Why storage could not be read, in `.storageUnavailable`.
    public private(set) var storageError: StorageError?

    @ObservationIgnored let sessions: SessionManager

    /// Follows `sessions`.
    public init(sessions: SessionManager) {
        self.sessions = sessions
    }

    /// The signed-in session, in `.signedIn`.
    public var session: AuthSession? {
        if case .signedIn(let session) = phase { return session }
        return nil
    }

    /// A usable session exists (what a biometric lock protects).
    public var isSignedIn: Bool { session != nil }

    /// What to tell the user about a session that ended without their asking; `nil` otherwise.
    public var notice: String? {
        switch phase {
        case .signedOut(let reason?) where reason != .userRequested: return ChatterError.signedOut(reason).message
        case .expired: return ChatterError.signedOut(.expired).message
        case .storageUnavailable:
            // A build without its keychain entitlement never unlocks: say what is wrong instead of waiting.
            if case .misconfigured = storageError { return storageError?.description }
            return "Unlock this device to continue."
        default: return nil
        }
    }

    /// Reads the stored session and follows every change until the calling task ends: run it from the
    /// root view's `.task`.
    public func run() async {
        await run(unlockingWith: nil)
    }

    /// The same, behind `gate` (Face ID on the session, `KeychainStore(accessControl:authenticationContext:)`): when a
    /// session is stored, the gate locks first and the session is read once it is unlocked, with the context the
    /// unlock evaluated, so the launch asks once, not twice.
    public func run(unlockingWith gate: BiometricGate?) async {
        // Subscribed first, so the `.initialSession` that `start()` announces (and, after a launch that
        // found storage locked, the one announced once it reads) arrives here.
        let events = await sessions.events()
        if let gate {
            gate.lockBeforeReading(hasStoredSession: await sessions.hasStoredSession())
            await gate.untilUnlocked()
        }
        await sessions.start()
        for await event in events {
            apply(event)
        }
    }

    /// The app came to the foreground: refreshes a session whose access token ended while it was away (a network
    /// failure is tried again after 1, 2 and 4 seconds), so the first request does not wait for it.
    public func appBecameActive() async {
        await sessions.refreshIfNeeded()
    }

    /// Reads storage again after it was unavailable (call when protected data becomes available).
    public func retryStorage() async {
        apply(.initialSession(await sessions.retryStorage()))
    }

    func apply(_ event: AuthEvent) {
        storageError = nil
        switch event {
        case .initialSession(.signedOut): phase = .signedOut(reason: nil)
        case .initialSession(.valid(let session)), .initialSession(.expiring(let session)): phase = .signedIn(session)
        case .initialSession(.expired(let session)): phase = .expired(session)
        case .initialSession(.storageUnavailable(let error)):
            phase = .storageUnavailable
            storageError = error
        case .signedIn(let session), .refreshed(let session): phase = .signedIn(session)
        case .signedOut(let reason): phase = .signedOut(reason: reason)
        }
    }
}
