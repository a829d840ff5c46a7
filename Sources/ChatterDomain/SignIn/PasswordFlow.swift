import ChatterCore
import ChatterWire
import Foundation

/// Email and password (F2), for the native API and the web pages alike: sign-up and reset prove the
/// address with an emailed code; sign-in is throttled and answers alike, and takes alike, for unknown
/// accounts and wrong passwords. Each step returns the signed-in user and the address it proved.
package struct PasswordFlow: Sendable {
    /// `AdminRepository` only to read whether an operator disabled the account.
    package typealias Store = UserRepository & PasswordRepository & SessionRepository & AdminRepository

    let store: any Store
    package let codes: EmailCodeFlow
    package let hasher: PasswordHasher
    package let rules: PasswordRules
    package let throttle: SignInThrottle
    package let devices: DeviceTokens
    package let audit: AuditLog
    package let stepUp: StepUp
    /// A password an emailed code asks to set waits for the account's second factor, when it has one.
    package let secondFactors: SecondFactorService
    package let notices: AccountNotices
    package let now: @Sendable () -> Date

    /// Sign-up on an address that already has a password is a reset: the code proved the address, so
    /// the new password replaces the old one and every other session of the account ends, audited. On an
    /// account with a second factor, nothing changes before it (`replacePassword`).
    package func signUp(email raw: String, password: String, displayName: String?, code: String, client: ClientInfo) async throws -> (User, String) {
        let email = try EmailCodeFlow.address(raw)
        try check(password, email: email)
        if let displayName, displayName.exceeds(Limits.nameCharacters) {
            throw InvalidInput.tooLong(field: "displayName", limit: Limits.nameCharacters)
        }
        try await codes.redeem(code, for: email, method: .password, client: client)
        let hash = try await hashed(password)
        // An account the address already reached (by a code, a provider, a passkey) gets a password it did not
        // have: its owner is told, as of any change to how it signs in.
        let hadAddress = try await store.user(for: .email(email)) != nil
        let display = displayName.flatMap(DisplayName.from) ?? DisplayName.from(email: email)
        let user = try await store.signIn(
            IdentityClaims(key: .email(email), displayName: displayName == nil ? nil : display, email: email, emailVerified: true),
            fallbackName: display, at: now(), mayCreate: codes.signUps.admits(client))
        // Or the address linked to an account made another way (a provider's verified address).
        let summary = try await store.accountSummary(userID: user.id)
        let existed = hadAddress || summary.identities.count > 1 || summary.hasPasskey
        try await replacePassword(hash, for: user, email: email, client: client, replacing: existed ? .signUpOnAnAccount : .signUp)
        return (user, email)
    }

    /// Every attempt is counted before the password is hashed; a device that signed in to the address
    /// before draws on its own allowance (see `SignInThrottle`).
    package func signIn(email raw: String, password: String, deviceToken: String?, client: ClientInfo) async throws -> (User, String) {
        // No account can have an invalid address, so refusing it at once tells an attacker nothing.
        guard let email = EmailAddress.normalize(raw) else { throw SignInError.wrongCredentials }
        let device = try await devices.device(deviceToken, for: email)
        let admission = try await throttle.admit(account: RateLimitKeys.passwordAccount(email: email), networks: client.limitKeys, device: device)
        guard case .allowed(let ticket) = admission else { throw LimitReached.counted(.passwordSignIn, retryAfter: admission.wait) }
        guard password.utf8.count <= rules.maximumBytes else { throw SignInError.wrongCredentials }
        let user = try await store.user(for: .email(email))
        let stored = try await user.asyncMap { try await store.passwordHash(userID: $0.id) } ?? nil
        let matches = try await checked(
            password, against: stored, ticket, lane: device == nil ? .stranger : .recognised, owner: RateLimitKeys.passwordAccount(email: email))
        guard matches, let user else {
            await audit.record(.signInFailed, user: stored == nil ? nil : user?.id, method: .password, client: client)
            throw SignInError.wrongCredentials
        }
        try await throttle.release(ticket)
        return (user, email)
    }

    /// "Forgot password": the emailed code proves the address; every session of the account ends. On an
    /// account with a second factor, the code alone changes nothing: the new password waits for the second
    /// step (`SecondFactorError.required`), as a sign-in would.
    package func reset(email raw: String, newPassword: String, code: String, client: ClientInfo) async throws -> (User, String) {
        let email = try EmailCodeFlow.address(raw)
        try check(newPassword, email: email)
        try await codes.redeem(code, for: email, method: .password, client: client)
        let hash = try await hashed(newPassword)
        let user = try await store.signIn(
            IdentityClaims(key: .email(email), email: email, emailVerified: true), fallbackName: DisplayName.from(email: email), at: now(),
            mayCreate: codes.signUps.admits(client))
        try await replacePassword(hash, for: user, email: email, client: client, replacing: .reset)
        return (user, email)
    }

    /// Signed in; revokes the user's other sessions and device tokens. Attempts are throttled like sign-ins
    /// (counted before hashing), and a wrong current password is audited.
    package func change(_ session: AuthenticatedSession, current: String, new: String, client: ClientInfo) async throws {
        try await stepUp.require(session)
        let user = session.user.id
        let owner = RateLimitKeys.passwordAccount(user)
        let email = try await store.identities(of: user).first { $0.key.issuer == IdentityKey.emailIssuer }?.key.subject
        try check(new, email: email)
        let admission = try await throttle.admit(account: owner, networks: client.limitKeys, device: nil)
        guard case .allowed(let ticket) = admission else { throw LimitReached.counted(.passwordChange, retryAfter: admission.wait) }
        let stored = try await store.passwordHash(userID: user)
        guard current.utf8.count <= rules.maximumBytes, try await checked(current, against: stored, ticket, owner: owner), stored != nil else {
            await audit.record(.passwordChangeFailed, user: user, method: .password, client: client)
            throw SignInError.wrongCurrentPassword
        }
        try await throttle.release(ticket)
        try await store.setPasswordHash(try await hashed(new), userID: user, at: now())
        let revoked = try await store.revokeSessions(of: user, except: session.sessionID)
        try await devices.endAll(of: user)
        await audit.record(.passwordChanged, user: user, method: .password, client: client, detail: "revoked \(revoked) other sessions")
        await notices.send(.passwordChanged, to: user, client: client)
    }

    /// A first password for an account that signs in another way (a code, a passkey, Google): it changes how
    /// the account signs in, so it takes a recent proof (`StepUp.requireReauthentication`), and the owner is
    /// told. Nothing is replaced, so no session ends. An account that has a password is refused
    /// (`SignInError.passwordExists`), decided in the statement that writes: changing one takes the current one.
    package func add(_ session: AuthenticatedSession, password new: String, client: ClientInfo) async throws {
        try await stepUp.requireReauthentication(session)
        let user = session.user.id
        let email = try await store.identities(of: user).first { $0.key.issuer == IdentityKey.emailIssuer }?.key.subject
        try check(new, email: email)
        // Read first so that a repeat on an account with a password costs no hashing (a slot every sign-in
        // shares); the insert below still decides, for two first passwords at once.
        guard try await store.passwordHash(userID: user) == nil else { throw SignInError.passwordExists }
        guard try await store.addPasswordHash(try await hashed(new), userID: user, at: now()) else { throw SignInError.passwordExists }
        await audit.record(.passwordSet, user: user, method: .password, client: client, detail: "added on the account page")
        await notices.send(.passwordSet, to: user, client: client)
    }

    /// What set the password: a sign-up that made the account, a sign-up on an account the address already
    /// reached, a reset, or either of the last two once their second step passed.
    package enum Replacement { case signUp, signUpOnAnAccount, reset, secondStep }

    /// Sets the password an emailed code (proving `email`) asked for. On an account with a second factor the
    /// code is one factor of two: nothing changes yet, and the hash waits with a second step, which sets it
    /// when it completes (`SignInService.completeSecondStep`). Whether the account has one is decided in the
    /// statement that writes the hash, so an authenticator confirmed meanwhile is not gone around. A disabled
    /// account is refused either way.
    package func replacePassword(_ hash: String, for user: User, email: String, client: ClientInfo, replacing: Replacement) async throws {
        do {
            try await setPassword(hash, for: user, client: client, replacing: replacing, unlessSecondFactor: true)
        } catch Refused.secondFactor {
            throw SecondFactorError.required(try await secondFactors.challenge(user, method: .password, email: email, newPasswordHash: hash, client: client))
        }
    }

    private enum Refused: Error { case secondFactor }

    /// Sets `user`'s password (`unlessSecondFactor`: only while the account has no confirmed authenticator,
    /// else `Refused.secondFactor` and nothing written). Replacing one (a reset, a sign-up on an address that
    /// had one, or either once its second step passed) ends every session of the account, and is audited as a
    /// reset; a first password is audited as set; either is mailed to the owner, except a sign-up's on the
    /// account it made. A disabled account's password is left as it is (the session insert would refuse the
    /// sign-in anyway; this keeps the refusal from changing it).
    package func setPassword(_ hash: String, for user: User, client: ClientInfo, replacing: Replacement, unlessSecondFactor: Bool = false) async throws {
        try await refuseDisabled(user, client: client)
        let had = try await store.passwordHash(userID: user.id) != nil
        if unlessSecondFactor {
            guard try await store.setPasswordHashUnlessSecondFactor(hash, userID: user.id, at: now()) else { throw Refused.secondFactor }
        } else {
            try await store.setPasswordHash(hash, userID: user.id, at: now())
        }
        if !had, replacing == .signUp || replacing == .signUpOnAnAccount {
            // A first password beside the ways in the account had: nothing is replaced, so no session ends; an
            // account that was there before the sign-up is told.
            guard replacing == .signUpOnAnAccount else { return }
            await audit.record(.passwordSet, user: user.id, method: .password, client: client, detail: "sign-up on the account's address")
            await notices.send(.passwordSet, to: user.id, client: client)
            return
        }
        let revoked = try await store.revokeSessions(of: user.id, except: nil)
        try await devices.endAll(of: user.id)
        let how =
            switch replacing {
            case .signUp, .signUpOnAnAccount: "sign-up on the account's address"
            case .reset: "reset"
            case .secondStep: "emailed code and second factor"
            }
        await audit.record(had ? .passwordReset : .passwordSet, user: user.id, method: .password, client: client, detail: "\(how); revoked \(revoked) sessions")
        await notices.send(had ? .passwordReset : .passwordSet, to: user.id, client: client)
    }

    private func refuseDisabled(_ user: User, client: ClientInfo) async throws {
        if try await store.account(id: user.id)?.disabledAt != nil {
            await audit.record(.signInFailed, user: user.id, method: .password, client: client, detail: AuditLog.accountDisabled)
            throw StoreError.accountDisabled
        }
    }

    package func check(_ password: String, email: String?) throws {
        if let problem = rules.problem(with: password, email: email) { throw SignInError.weakPassword(problem) }
    }

    package func hashed(_ password: String) async throws -> String {
        do { return try await hasher.hash(password) } catch is PasswordHasher.Busy { throw SignInError.busy }
    }

    /// Checks `password` for an attempt the throttle admitted. When the check cannot run (the hasher is
    /// busy), the attempt is handed back, since no guess was evaluated: a refusal for capacity never
    /// counts against the account.
    package func checked(
        _ password: String, against hash: String?, _ ticket: SignInThrottle.Ticket, lane: PasswordHasher.Lane = .recognised, owner: String? = nil
    ) async throws -> Bool {
        do {
            return try await hasher.verify(password, against: hash, lane: lane, owner: owner)
        } catch {
            // fail-closed: if the ticket is not handed back the attempt stays counted; the error is still thrown
            try? await throttle.release(ticket)
            throw error is PasswordHasher.Busy ? SignInError.busy : error
        }
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        store: any Store, codes: EmailCodeFlow, hasher: PasswordHasher, rules: PasswordRules, throttle: SignInThrottle, devices: DeviceTokens, audit: AuditLog,
        stepUp: StepUp, secondFactors: SecondFactorService, notices: AccountNotices, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.codes = codes
        self.hasher = hasher
        self.rules = rules
        self.throttle = throttle
        self.devices = devices
        self.audit = audit
        self.stepUp = stepUp
        self.secondFactors = secondFactors
        self.notices = notices
        self.now = now
    }
}

extension Optional {
    package func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
