import ChatterCore
import ChatterWire
import Crypto
import Foundation
import Logging

/// The second factor's rules, for the native API and the pages alike: adding an authenticator app (its
/// first code confirms it and yields ten recovery codes), the second step of a sign-in, and the code an
/// account action asks for. Every code is counted against the account's guess limit before it is compared,
/// and every use of a code is one store step, so a code is accepted once however many requests carry it.
package struct SecondFactorService: Sendable {
    package typealias Store = SecondFactorRepository & UserRepository

    let store: any Store
    package let box: SecretBox
    package let notices: AccountNotices
    package let audit: AuditLog
    /// The name authenticator apps show beside the account.
    package let issuer: String
    package let logger: Logger
    package let now: @Sendable () -> Date

    /// How long a sign-in waits for its second step.
    package static let stepLifetime: Double = 5 * 60
    /// Wrong codes an account may send: per `window`, and per day. Six digits and three accepted steps make
    /// a guess right one time in 333,333: twenty a day give an attacker who has the first factor about one
    /// chance in 16,000 a day, while an owner who mistypes a few codes never waits long.
    package static let guessesPerWindow = 5
    package static let guessWindow: Double = 15 * 60
    package static let guessesPerDay = 20

    // MARK: Whether a sign-in needs a second step

    /// Whether `user` has a confirmed authenticator.
    package func isEnabled(for userID: UUID) async throws -> Bool {
        try await store.hasSecondFactor(userID: userID)
    }

    /// Keeps a sign-in whose first factor (`method`, proving `email`) passed, and answers the token its
    /// second step presents. `newPasswordHash`: a password the first factor asked to set, set when the step completes.
    /// A disabled account is refused here (`StoreError.accountDisabled`, audited) rather than asked for a code.
    package func challenge(_ user: User, method: SignInMethod, email: String?, newPasswordHash: String? = nil, client: ClientInfo) async throws
        -> SecondFactorChallengeToken
    {
        let token = SecureRandom.bytes(32)
        do {
            try await store.storeSecondStep(
                PendingSecondStep(
                    hash: Self.hash(token), userID: user.id, method: method.rawValue, email: email,
                    expiresAt: now().addingTimeInterval(Self.stepLifetime), newPasswordHash: newPasswordHash))
        } catch StoreError.accountDisabled {
            await audit.record(.signInFailed, user: user.id, method: method, client: client, detail: AuditLog.accountDisabled)
            throw StoreError.accountDisabled
        }
        return SecondFactorChallengeToken(token: Base64URL.encode(token), expiresIn: Int(Self.stepLifetime))
    }

    /// The second step: `code` checked for the waiting sign-in `token`, which is then taken (once). A wrong
    /// code leaves the sign-in waiting, for the owner to try again within the account's guess limit.
    package func complete(token: String, code: String, client: ClientInfo) async throws -> (step: PendingSecondStep, user: User, factor: SecondFactorKind) {
        guard let bytes = Base64URL.decode(token), bytes.count == 32, let waiting = try await store.secondStep(hash: Self.hash(bytes), at: now()),
            let user = try await store.user(id: waiting.userID)
        else { throw SecondFactorError.stepExpired }
        let checked = try await check(code, userID: user.id, method: SignInMethod(rawValue: waiting.method), client: client, completing: waiting.hash)
        // An app code took the waiting sign-in with its step; a recovery code's is taken now.
        let taken = checked.completed ? checked.taken : try await store.takeSecondStep(hash: waiting.hash, at: now())
        guard let taken else { throw SecondFactorError.stepExpired }
        return (taken, user, checked.factor)
    }

    // MARK: Adding, renewing and removing

    package func status(_ userID: UUID) async throws -> SecondFactorStatus {
        let record = try await store.totp(userID: userID)
        let enabled = record?.confirmedAt != nil
        return SecondFactorStatus(
            enabled: enabled, pending: record != nil && !enabled, recoveryCodesLeft: enabled ? record?.recoveryCodesLeft ?? 0 : 0,
            enabledAt: record?.confirmedAt?.timeIntervalSince1970)
    }

    /// Step-up's rules over this store and clock.
    package var stepUp: StepUp { StepUp(store: store, now: now) }

    /// A new secret, waiting for its first code; it replaces one still waiting. `account`: the name the
    /// app shows (the account's address, else its display name). Its first code counts as a step-up, so it
    /// is begun only from a session with a recent proof (a sign-in, or a passkey's step-up, within the last
    /// ten minutes): a stolen old session can neither lock the owner out with its thief's app nor step up
    /// through one.
    package func beginEnrolment(_ session: AuthenticatedSession, account: String) async throws -> TOTPEnrolment {
        // An account with one already is told so, whatever the session's proof (the store decides it again below).
        if try await store.hasSecondFactor(userID: session.user.id) { throw SecondFactorError.alreadyEnabled }
        try await stepUp.requireReauthentication(session)
        let user = session.user
        let totp = TOTP.random()
        let sealed = try box.seal(totp.secret, for: user.id, session: session.sessionID)
        guard try await store.storePendingTOTP(userID: user.id, sealedSecret: sealed, at: now()) else {
            throw SecondFactorError.alreadyEnabled
        }
        return enrolment(totp, account: account)
    }

    /// The enrolment `session` began and that waits for its first code, its secret opened again (the setup
    /// page shows it while it waits); nil for any other session of the account, which may begin its own.
    package func pendingEnrolment(_ session: AuthenticatedSession, account: String) async throws -> TOTPEnrolment? {
        guard let record = try await store.totp(userID: session.user.id), record.confirmedAt == nil,
            let secret = box.open(record.sealedSecret, for: session.user.id, session: session.sessionID)
        else { return nil }
        let totp = TOTP(secret: secret)
        return enrolment(totp, account: account)
    }

    /// What the app is given: the secret to type and the key URI its QR code carries.
    private func enrolment(_ totp: TOTP, account: String) -> TOTPEnrolment {
        TOTPEnrolment(secret: totp.base32Secret, uri: totp.uri(issuer: issuer, account: account))
    }

    /// The name an authenticator app shows for the account: its verified address, else its display name.
    package func accountName(_ user: User) async throws -> String {
        try await store.accountSummary(userID: user.id).identities.first { $0.emailVerified && $0.email != nil }?.email ?? user.displayName
    }

    /// The app's first code turns the second factor on, and counts as a step-up for the session that gave
    /// it; answers the recovery codes, shown this once.
    package func confirmEnrolment(_ session: AuthenticatedSession, code: String, client: ClientInfo) async throws -> [String] {
        let user = session.user
        // Another session of the account has no enrolment of its own to confirm: it is refused before it
        // counts a guess, so it cannot spend the owner's guesses and keep the owner from confirming.
        guard let waiting = try await store.totp(userID: user.id), waiting.confirmedAt == nil,
            box.open(waiting.sealedSecret, for: user.id, session: session.sessionID) != nil
        else { throw SecondFactorError.notEnabled }
        guard let guess = try await store.takeGuess(userID: user.id, confirmed: false, window: Self.guessWindow, at: now()) else {
            throw SecondFactorError.notEnabled
        }
        try admit(guess)
        // Only the session that began the enrolment opens its secret; for any other, there is none to confirm.
        guard let secret = box.open(guess.sealedSecret, for: user.id, session: session.sessionID) else { throw SecondFactorError.notEnabled }
        guard let typed = TOTP.normalized(code), let step = TOTP(secret: secret).matchingStep(typed, at: now()) else {
            await audit.record(.secondFactorFailed, user: user.id, client: client, detail: "enrolment")
            throw SecondFactorError.invalidCode
        }
        let codes = RecoveryCode.generate()
        guard
            try await store.confirmTOTP(
                userID: user.id, sealedSecret: guess.sealedSecret, resealed: try box.seal(secret, for: user.id), step: step,
                recoveryCodes: hashes(codes, for: user.id), at: now())
        else { throw SecondFactorError.notEnabled }
        _ = try await store.recordStepUp(sessionID: session.sessionID, userID: user.id, factor: SecondFactorKind.totp.rawValue, at: now())
        await audit.record(.secondFactorEnabled, user: user.id, client: client, detail: "\(codes.count) recovery codes")
        await notices.send(.secondFactorOn, to: user.id, client: client)
        return codes
    }

    /// A new set of recovery codes, ending the old set; `code` proves the second factor now.
    package func regenerateRecoveryCodes(_ user: User, code: String, client: ClientInfo) async throws -> [String] {
        _ = try await verify(code, userID: user.id, method: nil, client: client)
        let codes = RecoveryCode.generate()
        guard try await store.replaceRecoveryCodes(userID: user.id, hashes: hashes(codes, for: user.id)) else { throw SecondFactorError.notEnabled }
        await audit.record(.recoveryCodesRegenerated, user: user.id, client: client)
        return codes
    }

    /// Turns the second factor off; `code` proves it now.
    package func disable(_ user: User, code: String, client: ClientInfo) async throws {
        _ = try await verify(code, userID: user.id, method: nil, client: client)
        guard try await store.deleteSecondFactor(userID: user.id) else { throw SecondFactorError.notEnabled }
        await audit.record(.secondFactorDisabled, user: user.id, client: client)
        await notices.send(.secondFactorOff, to: user.id, client: client)
    }

    /// A step-up: `code` proves the second factor for `session`, which may then do what matters for
    /// `StepUp.window`.
    package func stepUp(_ session: AuthenticatedSession, code: String, client: ClientInfo) async throws {
        let factor = try await verify(code, userID: session.user.id, method: session.signInMethod, client: client)
        guard try await store.recordStepUp(sessionID: session.sessionID, userID: session.user.id, factor: factor.rawValue, at: now()) else {
            throw SessionError.invalidAccessToken
        }
    }

    /// Records a step-up `session` passed another way (a passkey).
    package func recordStepUp(_ session: AuthenticatedSession, factor: SecondFactorKind) async throws {
        guard try await store.recordStepUp(sessionID: session.sessionID, userID: session.user.id, factor: factor.rawValue, at: now()) else {
            throw SessionError.invalidAccessToken
        }
    }

    // MARK: Checking a code

    /// Checks `code` (an app's code or a recovery code) for the account, counted first against its guess
    /// limit, and uses it up: the app's step or the recovery code, in one store step each.
    package func verify(_ code: String, userID: UUID, method: SignInMethod?, client: ClientInfo) async throws -> SecondFactorKind {
        try await check(code, userID: userID, method: method, client: client, completing: nil).factor
    }

    /// What a right code did: its kind and, when an app code completed the waiting sign-in `completing` in the
    /// same store step as its time step (`completed`), that sign-in (nil when it had gone meanwhile).
    private struct Checked {
        var factor: SecondFactorKind
        var completed = false
        var taken: PendingSecondStep? = nil
    }

    private func check(_ code: String, userID: UUID, method: SignInMethod?, client: ClientInfo, completing hash: [UInt8]?) async throws -> Checked {
        // The guess is counted in the statement that reads the secret: one store step before anything is compared.
        guard let guess = try await store.takeGuess(userID: userID, window: Self.guessWindow, at: now()) else { throw SecondFactorError.notEnabled }
        try admit(guess)
        var spent = false
        if let typed = TOTP.normalized(code) {
            // A step at or before the last one used is refused here without a write; the store decides the rest.
            if let secret = openSecret(guess.sealedSecret, for: userID), let step = TOTP(secret: secret).matchingStep(typed, at: now()) {
                spent = true
                if step > guess.lastStep {
                    if let hash {
                        let (used, taken) = try await store.useTOTPStep(userID: userID, step: step, completing: hash, at: now())
                        if used { return Checked(factor: .totp, completed: true, taken: taken) }
                    } else if try await store.useTOTPStep(userID: userID, step: step) {
                        return Checked(factor: .totp)
                    }
                }
            }
        } else if let typed = RecoveryCode.normalized(code),
            let left = try await store.useRecoveryCode(userID: userID, hash: box.recoveryHash(typed, for: userID))
        {
            await audit.record(.recoveryCodeUsed, user: userID, method: method, client: client, detail: "\(left) left")
            await notices.send(.recoveryCodeUsed(left: left), to: userID, client: client)
            return Checked(factor: .recoveryCode)
        }
        await audit.record(.secondFactorFailed, user: userID, method: method, client: client, detail: spent ? "code used already" : nil)
        // The app's code, right but spent (at sign-in moments ago, or by a request that won the race): never
        // taken twice, and said so, since waiting for the next code is what helps. Only someone who has the
        // secret types a spent code, so this tells a guesser nothing.
        throw spent ? SecondFactorError.codeUsed : SecondFactorError.invalidCode
    }

    /// The secret in the clear; nil, logged for the operator (never with the secret), when it does not open:
    /// the key file is not the one it was sealed under (instances sharing a database must share it), or the
    /// row was damaged.
    private func openSecret(_ sealed: [UInt8], for userID: UUID) -> [UInt8]? {
        guard let secret = box.open(sealed, for: userID) else {
            logger.error(
                "an authenticator secret did not open: is --second-factor-key the key it was sealed under?", metadata: ["user": "\(userID.text)"])
            return nil
        }
        return secret
    }

    /// Past the account's limits, the guess (counted all the same) is refused before anything is compared.
    private func admit(_ guess: TOTPGuess) throws {
        if guess.guesses > Self.guessesPerWindow { throw LimitReached.counted(.secondFactor, retryAfter: Int(Self.guessWindow)) }
        if guess.dayGuesses > Self.guessesPerDay { throw LimitReached.counted(.secondFactor, retryAfter: 86_400) }
    }

    private func hashes(_ codes: [String], for userID: UUID) -> [[UInt8]] {
        codes.compactMap(RecoveryCode.normalized).map { box.recoveryHash($0, for: userID) }
    }

    package static func hash(_ token: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: token)) }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        store: any Store, box: SecretBox, notices: AccountNotices, audit: AuditLog, issuer: String, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.box = box
        self.notices = notices
        self.audit = audit
        self.issuer = issuer
        self.logger = logger
        self.now = now
    }
}
