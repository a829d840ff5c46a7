import ChatterCore
import ChatterWire
import Foundation

/// Sign-in with Google or Apple, for every route that takes their ID tokens (the native API, the course
/// `/adduser`, the web button), assembled here once: the token verified, a refusal audited with the check
/// that failed, the account its identity names found or created, Apple's refresh token kept, and the
/// sign-in answered as a flow for `SignInService` to end.
package struct ProviderSignIn: Sendable {
    package let google: IDTokenVerifier
    package let apple: IDTokenVerifier
    package let audit: AuditLog
    /// Finds or creates the account an identity names (`UserRepository.signIn`).
    package let users: any UserRepository
    package let appleTokens: AppleTokens
    /// Who may create an account (`--app-attest-sign-up`): given at assembly, never defaulted, so no flow is open by
    /// omission.
    package let signUps: SignUpGate
    package let now: @Sendable () -> Date

    /// A Google sign-in: the account its ID token names.
    package func google(_ idToken: String, clientID: String, nonce: NonceExpectation = .notChecked, client: ClientInfo) async throws -> SignInFlow {
        SignInFlow(
            user: try await users.signIn(
                try await googleClaims(idToken, clientID: clientID, nonce: nonce, client: client), fallbackName: DisplayName.missing, at: now(),
                mayCreate: signUps.admits(client)),
            method: .google)
    }

    /// An Apple sign-in: the account its identity token names; the app's authorization code, when it sent one,
    /// is exchanged for the refresh token chatterd revokes when the account goes.
    package func apple(
        _ identityToken: String, rawNonce: String?, name: NameParts?, user: String? = nil, authorizationCode: String? = nil, client: ClientInfo
    ) async throws -> SignInFlow {
        let (claims, identity) = try await appleClaims(
            identityToken, rawNonce: rawNonce, name: name, user: user, authorizationCode: authorizationCode, client: client)
        let account = try await users.signIn(claims, fallbackName: DisplayName.missing, at: now(), mayCreate: signUps.admits(client))
        await appleTokens.keep(code: authorizationCode, for: identity, userID: account.id)
        return SignInFlow(user: account, method: .apple)
    }

    package func googleClaims(_ idToken: String, clientID: String, nonce: NonceExpectation = .notChecked, client: ClientInfo) async throws -> IdentityClaims {
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
    package func appleClaims(
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
    package static let authorizationCodeCharacters = 1_000

    /// Audits the refusal with the check that failed.
    private func refused(_ error: TokenRejected, _ method: SignInMethod, client: ClientInfo) async -> SignInError {
        await audit.record(.signInFailed, method: method, client: client, detail: error.check.rawValue)
        return SignInError.tokenRejected(error, provider: method == .google ? "Google" : "Apple")
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        google: IDTokenVerifier, apple: IDTokenVerifier, audit: AuditLog, users: any UserRepository, appleTokens: AppleTokens,
        signUps: SignUpGate, now: @escaping @Sendable () -> Date
    ) {
        self.signUps = signUps
        self.google = google
        self.apple = apple
        self.audit = audit
        self.users = users
        self.appleTokens = appleTokens
        self.now = now
    }
}
