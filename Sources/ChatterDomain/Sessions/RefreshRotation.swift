import ChatterCore
import Foundation

// The refresh-token state machine, written once over `SessionRepository`'s steps for every database.
extension SessionRepository {
    /// A live token rotates in one statement (a token of no session cannot be live). Anything else is
    /// settled in a transaction with the session locked: a current token the rotation refused is past its
    /// lifetime and ends its session; a token retired by the latest rotation, presented again within the
    /// grace window, replays that rotation's answer once; any other retired token is reuse, and its whole
    /// session ends.
    public func rotate(_ r: Rotation) async throws -> RotationOutcome {
        if r.sessionID != nil, let rotated = try await rotateLive(r) { return .rotated(rotated) }
        return try await refreshTransaction { sessions in
            if let current = try await sessions.currentSession(r) {
                // A bound session's token without its key's proof changes nothing (nor is it taken for reuse).
                guard Self.holdsKey(current.boundKey, r) else { return .wrongKey }
                try await sessions.deleteSession(id: current.id)
                return .expired(userID: current.userID)
            }
            guard let retired = try await sessions.retiredToken(r) else { return .unknown }
            guard Self.holdsKey(retired.boundKey, r) else { return .wrongKey }
            // Only the token retired by the latest rotation, only briefly, and only once (the box is emptied
            // as it is handed out; the lock orders concurrent retries): a client whose answer was lost retries.
            if retired.rotatedAt == retired.retiredAt, r.now.timeIntervalSince(retired.retiredAt) <= r.graceWindow,
                let box = retired.retryBox, let user = try await sessions.user(id: retired.userID)
            {
                try await sessions.emptyRetryBox(sessionID: retired.sessionID)
                return .retry(
                    sessionID: retired.sessionID, user: user, retryBox: box, accessExpiresAt: retired.accessExpiresAt,
                    absoluteExpiresAt: retired.absoluteExpiresAt, boundKey: retired.boundKey)
            }
            try await sessions.deleteSession(id: retired.sessionID)
            return .reused(sessionID: retired.sessionID, userID: retired.userID)
        }
    }

    /// Whether the rotation may touch a session bound to `boundKey`: an unbound one, or one bound to the
    /// key the refresh request proved it holds.
    static func holdsKey(_ boundKey: String?, _ r: Rotation) -> Bool {
        boundKey == nil || boundKey == r.boundKey
    }
}
