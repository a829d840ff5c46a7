import ChatterWire
import Foundation

/// Sign-in with Google or Apple, for every route that takes their ID tokens (the native API, the course
/// `/adduser`, the web button): the token verified, a refusal audited with the check that failed, and the
/// identity as the store keeps it.
struct ProviderSignIn: Sendable {
    let google: IDTokenVerifier
    let apple: IDTokenVerifier
    let audit: AuditLog

    func google(_ idToken: String, clientID: String, nonce: NonceExpectation = .notChecked, client: ClientInfo) async throws -> IdentityClaims {
        let identity: VerifiedIdentity
        do { identity = try await google.verify(idToken, clientID: clientID, nonce: nonce) } catch {
            throw await refused(error, .google, client: client)
        }
        return IdentityClaims(
            key: IdentityKey(issuer: identity.issuer, subject: identity.subject), displayName: identity.name.flatMap(DisplayName.from),
            email: identity.email.flatMap(EmailAddress.normalize), emailVerified: identity.emailVerified)
    }

    /// Apple shares the name and email only on the first sign-in; the client resends them until this
    /// succeeds, and repeating it never creates a second user or erases a stored name. The token's email is
    /// Apple's word; a name comes only from the app, so it is checked here.
    func apple(_ identityToken: String, rawNonce: String?, name: NameParts?, client: ClientInfo) async throws -> IdentityClaims {
        let identity: VerifiedIdentity
        do { identity = try await apple.verify(identityToken, nonce: .raw(rawNonce)) } catch {
            throw await refused(error, .apple, client: client)
        }
        if let name,
            [name.givenName, name.familyName, name.middleName, name.nickname, name.namePrefix, name.nameSuffix]
                .contains(where: { ($0 ?? "").count > Limits.nameCharacters })
        {
            throw InvalidInput.namePartTooLong(limit: Limits.nameCharacters)
        }
        let email = identity.email.flatMap(EmailAddress.normalize)
        return IdentityClaims(
            key: IdentityKey(issuer: identity.issuer, subject: identity.subject), displayName: name.flatMap(DisplayName.from), name: name,
            email: email, emailVerified: email != nil && identity.emailVerified)
    }

    /// Audits the refusal with the check that failed.
    private func refused(_ error: TokenRejected, _ method: SignInMethod, client: ClientInfo) async -> SignInError {
        await audit.record(.signInFailed, method: method, client: client, detail: error.check.rawValue)
        return SignInError.tokenRejected(error, provider: method == .google ? "Google" : "Apple")
    }
}
