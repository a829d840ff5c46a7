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
    /// `user` and `authorizationCode`, when the app sends them, are the credential's: the user must be the token's
    /// Apple ID, and the code is checked only for length here (Apple checks the rest when it is exchanged).
    func apple(
        _ identityToken: String, rawNonce: String?, name: NameParts?, user: String? = nil, authorizationCode: String? = nil, client: ClientInfo
    ) async throws -> (claims: IdentityClaims, identity: VerifiedIdentity) {
        if let authorizationCode, authorizationCode.exceeds(Self.authorizationCodeCharacters) {
            throw InvalidInput.tooLong(field: "authorizationCode", limit: Self.authorizationCodeCharacters)
        }
        let identity: VerifiedIdentity
        do { identity = try await apple.verify(identityToken, nonce: .raw(rawNonce)) } catch {
            throw await refused(error, .apple, client: client)
        }
        if let user, user != identity.subject { throw InvalidInput.appleUserMismatch }
        if let name,
            [name.givenName, name.familyName, name.middleName, name.nickname, name.namePrefix, name.nameSuffix]
                .contains(where: { ($0 ?? "").count > Limits.nameCharacters })
        {
            throw InvalidInput.namePartTooLong(limit: Limits.nameCharacters)
        }
        let email = identity.email.flatMap(EmailAddress.normalize)
        let claims = IdentityClaims(
            key: IdentityKey(issuer: identity.issuer, subject: identity.subject), displayName: name.flatMap(DisplayName.from), name: name,
            email: email, emailVerified: email != nil && identity.emailVerified)
        return (claims, identity)
    }

    /// Apple's authorization codes are under a hundred characters; this bounds what is sent on to Apple.
    static let authorizationCodeCharacters = 1_000

    /// Audits the refusal with the check that failed.
    private func refused(_ error: TokenRejected, _ method: SignInMethod, client: ClientInfo) async -> SignInError {
        await audit.record(.signInFailed, method: method, client: client, detail: error.check.rawValue)
        return SignInError.tokenRejected(error, provider: method == .google ? "Google" : "Apple")
    }
}
