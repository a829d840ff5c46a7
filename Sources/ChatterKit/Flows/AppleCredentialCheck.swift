import Foundation

/// What Apple says of an Apple ID's authorization of this app, as `ASAuthorizationAppleIDProvider` reports it.
public enum AppleIDCredentialState: String, Sendable, Equatable {
    /// The Apple ID still uses Sign in with Apple with this app.
    case authorized
    /// The user stopped using Sign in with Apple with this app (Settings › Apple ID › Sign in with Apple).
    case revoked
    /// Apple knows no such credential on this device (signed out of the Apple ID, or never signed in here).
    case notFound
    /// The app moved to another developer team; the user ID changes at the next sign-in.
    case transferred
}

/// Asks Apple for a credential's state: `SystemAppleIDCredentialStates` on Apple's platforms.
public protocol AppleIDCredentialStates: Sendable {
    /// What Apple says of `userID` (a credential's `user`); throws when Apple cannot be asked.
    func state(forUserID userID: String) async throws -> AppleIDCredentialState
}

/// The Apple ID this device's session signed in with, kept beside the session (`StoreKey.appleSignIn`) and
/// tied to it by the session's id, so a later sign-in with another method is never judged by Apple's answer.
struct AppleSignInRecord: Codable, Equatable {
    var user: String
    var sessionID: String
}

extension SessionManager {
    /// At launch (`Chatter.run()` calls it): signs out, with `SignOutReason.appleIDRevoked`, when this device's
    /// session came from Sign in with Apple and Apple now reports the credential revoked or not found, as Apple
    /// asks of apps. An authorized or transferred credential, an unanswered question or another sign-in method
    /// leave the session alone. Returns whether it signed out.
    @discardableResult
    public func checkAppleCredential(with states: any AppleIDCredentialStates) async -> Bool {
        guard let data = try? await store.read(StoreKey.appleSignIn) else { return false }
        guard let record = try? JSONDecoder().decode(AppleSignInRecord.self, from: data) else {
            try? await store.delete(StoreKey.appleSignIn)
            return false
        }
        switch await status() {
        case .storageUnavailable: return false  // nothing to judge yet; the next launch asks again
        case .signedOut:
            await forgetAppleSignIn(record)
            return false
        case .valid, .expiring, .expired: break
        }
        guard let current = currentSession, current.sessionID == record.sessionID else {
            // The session came from another sign-in since: Apple's answer says nothing of it.
            await forgetAppleSignIn(record)
            return false
        }
        guard let state = try? await states.state(forUserID: record.user), state == .revoked || state == .notFound else { return false }
        // While Apple answered, another sign-in may have replaced the session: only the one asked about ends.
        guard currentSession?.sessionID == record.sessionID else { return false }
        _ = try? await signOut(all: false, reason: .appleIDRevoked)
        await forgetAppleSignIn(record)
        return true
    }

    /// Deletes the kept record, unless an Apple sign-in replaced it meanwhile.
    private func forgetAppleSignIn(_ record: AppleSignInRecord) async {
        guard let data = try? await store.read(StoreKey.appleSignIn),
            (try? JSONDecoder().decode(AppleSignInRecord.self, from: data)) == record
        else { return }
        try? await store.delete(StoreKey.appleSignIn)
    }
}
