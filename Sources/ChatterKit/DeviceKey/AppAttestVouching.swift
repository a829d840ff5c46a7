import Foundation

/// How an attested install vouches for its sign-ins (a class: `ChatterAPI` holds it, and it holds a `ChatterAPI`): `ChatterAPI` asks it for an `App-Attest-Assertion` header for each
/// request that starts a session, and tells it when chatterd refused one. `ChatterClient(... appAttest:)` makes it.
final class AppAttestVouching: Sendable {
    let attestation: AppAttestation
    /// Set once attesting found nothing to do in this process (no App Attest on the device or the server, or chatterd
    /// refused the app): later sign-ins ask nothing. A key Apple could not attest yet is tried again at the next one.
    private let settled = Locked(false)

    init(attestation: AppAttestation) {
        self.attestation = attestation
    }

    /// The header for a sign-in whose DPoP key has `thumbprint`, the install's key attested first when it was not;
    /// nil when there is none to give, and the sign-in goes on without. Throws only `ChatterError.rateLimited`: when
    /// chatterd has no challenge to give this network now, the sign-in waits rather than go on unvouched (a server
    /// that creates accounts only for attested installs would then tell the app's own user to sign up in the app).
    func header(thumbprint: String?) async throws -> String? {
        guard !settled.withLock({ $0 }) else { return nil }
        switch await attestation.attest() {
        case .attested(let keyID):
            return try await attestation.assertion(keyID: keyID, thumbprint: thumbprint)
        case .unsupported, .refused:
            settled.withLock { $0 = true }
            return nil
        case .retryLater:
            return nil
        }
    }

    /// chatterd refused an assertion: a key it does not know (its database was replaced, or the key was purged) is
    /// forgotten, so the next header attests a new one.
    func refused(_ body: ErrorBody?) async {
        if body?.check == AppAttestCheckName.keyID { await attestation.forget() }
    }
}

/// The checks of an App Attest refusal ChatterKit acts on (`ErrorBody.check`).
enum AppAttestCheckName {
    static let keyID = "key_id"
}
