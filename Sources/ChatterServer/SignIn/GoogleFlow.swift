import ChatterWire
import Foundation

/// Google sign-in for the native API and the web button alike: the ID token verified for `clientID`,
/// a refusal audited with the check that failed, and the identity as the store keeps it.
struct GoogleFlow {
    let services: ChatterServices

    func claims(_ idToken: String, clientID: String, nonce: NonceExpectation = .notChecked, client: ClientInfo) async throws -> IdentityClaims {
        let identity: VerifiedIdentity
        do {
            identity = try await services.google.verify(idToken, clientID: clientID, nonce: nonce)
        } catch {
            await services.audit.record(.signInFailed, method: "google", client: client, detail: error.check.rawValue)
            throw error.apiError(provider: "Google")
        }
        return IdentityClaims(
            key: IdentityKey(issuer: identity.issuer, subject: identity.subject), displayName: identity.name.flatMap(CourseRoutes.displayName),
            email: identity.email.flatMap(EmailAddress.normalize), emailVerified: identity.emailVerified)
    }
}
