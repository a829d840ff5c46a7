import Foundation

/// The rule for actions that matter (deleting the account, changing the password, signing out everywhere,
/// adding a passkey, an operator's action): on an account with a second factor, the session must have
/// passed it within `window` — at sign-in, or since, with a code (`SecondFactorService.stepUp`). The time
/// is read from the database at the moment of asking, never from a cache.
struct StepUp: Sendable {
    let store: any SecondFactorRepository
    let now: @Sendable () -> Date

    /// How long a passed second factor vouches for a session's actions that matter.
    static let window: Double = 10 * 60

    func require(_ session: AuthenticatedSession) async throws {
        guard try await store.totp(userID: session.user.id)?.confirmedAt != nil else { return }
        guard let passed = try await store.sessionSecondFactorAt(sessionID: session.sessionID), now().timeIntervalSince(passed) < Self.window
        else { throw SecondFactorError.stepUpRequired }
    }
}
