import ChatterCore
import Foundation

/// The rule for actions that matter (deleting the account, changing the password, signing out everywhere,
/// adding or removing a passkey, an operator's action): on an account with a second factor, the session must
/// have passed it within `window` — at sign-in, or since, with a code (`SecondFactorService.stepUp`) or a
/// passkey (`PasskeyService.stepUp`). The time is read from the database at the moment of asking, never
/// from a cache.
package struct StepUp: Sendable {
    let store: any SecondFactorRepository
    package let now: @Sendable () -> Date

    /// How long a passed second factor vouches for a session's actions that matter.
    package static let window: Double = 10 * 60

    package func require(_ session: AuthenticatedSession) async throws {
        guard try await store.hasSecondFactor(userID: session.user.id) else { return }
        guard let passed = try await store.sessionTimes(sessionID: session.sessionID)?.secondFactorAt, now().timeIntervalSince(passed) < Self.window
        else { throw SecondFactorError.stepUpRequired }
    }

    /// For what changes how the account signs in (adding or removing a passkey): on an account with a second
    /// factor, a recent second factor (`require`); without one, a recent first factor: a sign-in of this
    /// session, or a step-up since (a passkey's), within `window`. A hand-off's browser session is no sign-in.
    package func requireReauthentication(_ session: AuthenticatedSession) async throws {
        if try await store.hasSecondFactor(userID: session.user.id) { return try await require(session) }
        guard let times = try await store.sessionTimes(sessionID: session.sessionID) else { throw SecondFactorError.signInAgain }
        let signedIn = session.signInMethod != .web && now().timeIntervalSince(times.createdAt) < Self.window
        let steppedUp = times.secondFactorAt.map { now().timeIntervalSince($0) < Self.window } ?? false
        guard signedIn || steppedUp else { throw SecondFactorError.signInAgain }
    }

    /// The session passed a second factor at some time (at sign-in or a step-up), however long ago: what the
    /// admin pages ask of an operator's session merely to show them.
    package func requireEver(_ session: AuthenticatedSession) async throws {
        guard try await store.sessionTimes(sessionID: session.sessionID)?.secondFactorAt != nil else { throw SecondFactorError.stepUpRequired }
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(store: any SecondFactorRepository, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }
}
