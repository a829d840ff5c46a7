import ChatterCore
import ChatterWire
import Crypto
import Foundation

/// Passkeys as a way to sign in (WebAuthn): the options each ceremony starts with, and the checks and
/// storage it ends with. Every challenge is random, kept server-side by its hash and redeemed once; the
/// sign-in itself ends in `SignInService`, like every other method.
package struct PasskeyService: Sendable {
    package let passkeys: any PasskeyRepository
    package let users: any UserRepository
    package let limits: any RateLimitRepository
    /// Only to read whether an operator disabled the account a sign-up's code reached.
    package let accounts: any AdminRepository
    /// A sign-up proves its address with an emailed code first.
    package let emailCodes: EmailCodeFlow
    package let secondFactors: SecondFactorService
    package let stepUp: StepUp
    package let verifier: PasskeyVerifier
    package let audit: AuditLog
    package let notices: AccountNotices
    /// Options requests from one client network per `window` (`--passkey-ceremony-limit`). Each stores a
    /// challenge, and every answer that costs a signature check must redeem one, so this bounds both what
    /// strangers can make chatterd keep and how many ceremonies they can make it verify.
    package var ceremoniesPerNetwork = Self.defaultCeremoniesPerNetwork
    package let now: @Sendable () -> Date

    /// How long options stay redeemable (WebAuthn's recommended default timeout, 5 minutes).
    package static let timeout: Double = 300
    package static let maximumNameLength = 64
    /// Passkeys verify the user (biometrics or a PIN): what makes one a sign-in of its own.
    package static let userVerification = UserVerification.required
    package static let defaultCeremoniesPerNetwork = 60
    package static let window: Double = 600

    package var party: RelyingParty { verifier.party }

    // MARK: Options

    /// Options to add a passkey to the session's account: its user handle, and its passkeys to exclude. A
    /// passkey signs in by itself and outlives a reset and "sign out everywhere", so adding one takes a recent
    /// proof (`StepUp.requireReauthentication`): a stolen session cannot plant one.
    package func registrationOptions(for session: AuthenticatedSession, client: ClientInfo) async throws -> PasskeyCreationOptions {
        try await stepUp.requireReauthentication(session)
        let user = session.user
        try await admit(client)
        let handle = try await passkeys.passkeyUserHandle(userID: user.id, candidate: SecureRandom.bytes(32))
        let existing = try await passkeys.passkeys(of: user.id)
        let challenge = try await issue(.register, userID: user.id, userHandle: handle)
        return creationOptions(challenge: challenge, handle: handle, name: user.displayName, displayName: user.displayName, excluding: existing)
    }

    /// Options to sign up with a passkey for `email`, once `code` proves it: for the address's account,
    /// created on first use as an emailed-code sign-in creates it.
    package func signUpOptions(email raw: String, code: String, client: ClientInfo) async throws -> PasskeyCreationOptions {
        let email = try EmailCodeFlow.address(raw)
        try await admit(client)
        let user = try await emailCodes.signIn(email: email, code: code, method: .passkey, client: client)
        try await refuseDisabled(user.id, client: client)
        // An emailed code is one factor: it may not add a passkey (two factors by itself) to an account that has a
        // second factor. Its owner signs in and adds one from the account.
        if try await secondFactors.isEnabled(for: user.id) { throw SecondFactorError.required(nil) }
        let handle = try await passkeys.passkeyUserHandle(userID: user.id, candidate: SecureRandom.bytes(32))
        let existing = try await passkeys.passkeys(of: user.id)
        let challenge = try await issue(.signUp, userID: user.id, email: email, userHandle: handle)
        return creationOptions(challenge: challenge, handle: handle, name: email, displayName: user.displayName, excluding: existing)
    }

    /// Options for signing in: no account is named, the passkey names it (discoverable credentials).
    package func signInOptions(client: ClientInfo) async throws -> PasskeyRequestOptions {
        try await admit(client)
        let challenge = try await issue(.signIn)
        return PasskeyRequestOptions(
            challenge: Base64URL.encode(challenge), timeout: Int(Self.timeout * 1000), rpId: party.id, userVerification: Self.userVerification.rawValue)
    }

    /// Options for a step-up with one of the session's account's passkeys (the account names them).
    package func stepUpOptions(for session: AuthenticatedSession, client: ClientInfo) async throws -> PasskeyRequestOptions {
        try await admit(client)
        let existing = try await passkeys.passkeys(of: session.user.id).filter { !$0.flagged }
        guard !existing.isEmpty else { throw PasskeyError.notFound }
        let challenge = try await issue(.stepUp, userID: session.user.id)
        return PasskeyRequestOptions(
            challenge: Base64URL.encode(challenge), timeout: Int(Self.timeout * 1000), rpId: party.id,
            allowCredentials: existing.map {
                PasskeyDescriptor(id: Base64URL.encode($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports)
            }, userVerification: Self.userVerification.rawValue)
    }

    package func creationOptions(challenge: [UInt8], handle: [UInt8], name: String, displayName: String, excluding existing: [PasskeyRecord])
        -> PasskeyCreationOptions
    {
        PasskeyCreationOptions(
            rp: .init(id: party.id, name: party.name), user: .init(id: Base64URL.encode(handle), name: name, displayName: displayName),
            challenge: Base64URL.encode(challenge), pubKeyCredParams: COSEAlgorithm.allCases.map { .init(alg: $0.rawValue) },
            timeout: Int(Self.timeout * 1000),
            excludeCredentials: existing.map {
                PasskeyDescriptor(id: Base64URL.encode($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports)
            },
            authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: Self.userVerification.rawValue),
            attestation: party.requiresTrustedAttestation ? "direct" : "none")
    }

    /// A fresh challenge from the CSPRNG, stored by its hash for `timeout`.
    package func issue(_ purpose: PasskeyChallenge.Purpose, userID: UUID? = nil, email: String? = nil, userHandle: [UInt8]? = nil) async throws -> [UInt8] {
        let challenge = SecureRandom.bytes(32)
        try await passkeys.storePasskeyChallenge(
            PasskeyChallenge(
                hash: Array(SHA256.hash(data: challenge)), purpose: purpose, userID: userID, email: email, userHandle: userHandle,
                userVerification: Self.userVerification, expiresAt: now().addingTimeInterval(Self.timeout)))
        return challenge
    }

    // MARK: Answers

    /// Ends a sign-up: adds the passkey to the account its options were made for, and returns the account
    /// with the address its emailed code proved. That address is the one the server kept with the challenge,
    /// never one the client names: it is what the device token is issued for.
    package func signUp(_ request: PasskeyRegistrationRequest, client: ClientInfo) async throws -> (user: User, email: String?) {
        let (passkey, challenge) = try await registered(request, purpose: .signUp, user: nil, client: client)
        guard let user = try await users.user(id: passkey.userID) else { throw StoreError.userGone }
        return (user, challenge.email)
    }

    /// Adds the passkey of a registration whose options were made for `user` (`purpose` `.register`) or for
    /// a sign-up (`.signUp`, any account: the challenge names it). Returns the stored passkey.
    package func register(_ request: PasskeyRegistrationRequest, purpose: PasskeyChallenge.Purpose, user: User?, client: ClientInfo) async throws
        -> PasskeyRecord
    {
        try await registered(request, purpose: purpose, user: user, client: client).passkey
    }

    /// `register`, answering the challenge it redeemed as well.
    private func registered(_ request: PasskeyRegistrationRequest, purpose: PasskeyChallenge.Purpose, user: User?, client: ClientInfo) async throws
        -> (passkey: PasskeyRecord, challenge: PasskeyChallenge)
    {
        let (challenge, bytes) = try await redeem(request.credential.response.clientDataJSON, purpose: purpose)
        guard let owner = challenge.userID, user == nil || user?.id == owner else { throw PasskeyError.invalidChallenge }
        let name = try request.name.map(Self.validName)
        let verified: VerifiedRegistration
        do {
            verified = try await verifier.inspectRegistration(request.credential, challenge: bytes, userVerification: challenge.userVerification).get()
        } catch {
            await audit.record(.passkeyRejected, user: owner, method: .passkey, client: client, detail: error.check.rawValue)
            throw PasskeyError.rejected(error)
        }
        let record = PasskeyRecord(
            credentialID: verified.credentialID, userID: owner, publicKey: verified.publicKey.encoded, signCount: verified.signCount,
            aaguid: verified.aaguid, backupEligible: verified.backupEligible, backedUp: verified.backedUp, transports: verified.transports,
            attestationFormat: verified.format.rawValue, name: name ?? AuthenticatorNames.name(aaguid: verified.aaguid) ?? "Passkey", createdAt: now())
        // A sign-up's options may have been fetched before the owner turned a second factor on: the emailed code
        // is one factor, and whether it may add a passkey is decided now, when the passkey would be added.
        if purpose == .signUp {
            if try await secondFactors.isEnabled(for: owner) { throw SecondFactorError.required(nil) }
            // Disabled since the options were made: the account takes no new way in, not only no session.
            try await refuseDisabled(owner, client: client)
        }
        guard try await passkeys.insertPasskey(record) else { throw PasskeyError.exists }
        await audit.record(.passkeyAdded, user: owner, method: .passkey, client: client, detail: verified.format.rawValue)
        await notices.send(.passkeyAdded(name: record.name), to: owner, client: client)
        return (record, challenge)
    }

    /// The account a passkey assertion signs in, after every check, with its summary as read with the
    /// passkey; the passkey's counter moves forward in the same step that accepts it.
    package func signIn(_ request: PasskeySignInRequest, client: ClientInfo) async throws -> (user: User, account: AccountSummary) {
        try await assert(request, purpose: .signIn, for: nil, client: client)
    }

    /// A step-up: one of the session's account's passkeys, for options made for that account, confirms it is
    /// the owner; the session may then do what takes a recent proof (`StepUp`) for its window. A passkey
    /// verifies the user, so it counts as both factors, as at sign-in.
    package func stepUp(_ request: PasskeySignInRequest, session: AuthenticatedSession, client: ClientInfo) async throws {
        _ = try await assert(request, purpose: .stepUp, for: session.user.id, client: client)
        try await secondFactors.recordStepUp(session, factor: .passkey)
    }

    /// The checks of every assertion: the challenge redeemed once for `purpose` (and, for `account`, made for
    /// it), the passkey found and not flagged (and, for `account`, that account's), its signature, its counter.
    private func assert(_ request: PasskeySignInRequest, purpose: PasskeyChallenge.Purpose, for account: UUID?, client: ClientInfo) async throws
        -> (user: User, account: AccountSummary)
    {
        let response = request.credential
        let id = Base64URL.decodeAnySpelling(response.rawId)
        let (challenge, bytes, found) = try await redeem(response.response.clientDataJSON, purpose: purpose, readingOwnerOf: id)
        if let account, challenge.userID != account { throw PasskeyError.invalidChallenge }
        guard let id, let owner = found, !owner.passkey.flagged, account == nil || owner.passkey.userID == account else {
            await audit.record(.signInFailed, method: .passkey, client: client, detail: ErrorCode.unknownPasskey.rawValue)
            throw PasskeyError.unknownPasskey
        }
        let stored = owner.passkey
        let credential = PasskeyVerifier.Credential(
            id: stored.credentialID, publicKey: try COSEKey(encoded: stored.publicKey), signCount: stored.signCount,
            backupEligible: stored.backupEligible, userHandle: owner.userHandle)
        let verified: VerifiedAssertion
        do {
            verified = try verifier.inspectAuthentication(response, challenge: bytes, userVerification: challenge.userVerification, credential: credential)
                .get()
        } catch {
            if error.check == .signCount { try await flag(stored, client: client) }
            await audit.record(.signInFailed, user: stored.userID, method: .passkey, client: client, detail: error.check.rawValue)
            throw PasskeyError.rejected(error)
        }
        guard try await passkeys.recordPasskeyUse(credentialID: id, signCount: verified.signCount, backedUp: verified.backedUp, at: now()) else {
            // Another assertion stored a counter at least this high meanwhile: one of the two is a copy.
            try await flag(stored, client: client)
            throw PasskeyError.rejected(PasskeyRejected(check: .signCount, reason: "the counter did not move forward"))
        }
        // The account as read with the passkey: if it was deleted since, starting the session fails.
        return (owner.user, owner.account)
    }

    /// A disabled account takes no passkey from a sign-up: it would sign in once the operator enabled it again.
    private func refuseDisabled(_ userID: UUID, client: ClientInfo) async throws {
        guard try await accounts.account(id: userID)?.disabledAt != nil else { return }
        await audit.record(.signInFailed, user: userID, method: .passkey, client: client, detail: AuditLog.accountDisabled)
        throw StoreError.accountDisabled
    }

    package func flag(_ passkey: PasskeyRecord, client: ClientInfo) async throws {
        try await passkeys.flagPasskey(credentialID: passkey.credentialID)
        await audit.record(.passkeyFlagged, user: passkey.userID, method: .passkey, client: client, detail: "counter went backwards")
    }

    /// Takes the challenge the client data names: each is redeemed once, and only for its own ceremony.
    package func redeem(_ clientDataJSON: String, purpose: PasskeyChallenge.Purpose) async throws -> (PasskeyChallenge, [UInt8]) {
        let (challenge, bytes, _) = try await redeem(clientDataJSON, purpose: purpose, readingOwnerOf: nil)
        return (challenge, bytes)
    }

    /// The same, reading the owner of the passkey `credentialID` names in the same store step (a sign-in).
    package func redeem(_ clientDataJSON: String, purpose: PasskeyChallenge.Purpose, readingOwnerOf credentialID: [UInt8]?) async throws
        -> (PasskeyChallenge, [UInt8], PasskeyOwner?)
    {
        guard let data = Base64URL.decodeAnySpelling(clientDataJSON), let clientData = ClientData.parse(data),
            let bytes = Base64URL.decodeAnySpelling(clientData.challenge),
            bytes.count == 32
        else { throw PasskeyError.invalidChallenge }
        let hash = Array(SHA256.hash(data: bytes))
        let lookup =
            if let credentialID {
                try await passkeys.takePasskeyChallenge(hash: hash, readingOwnerOf: credentialID, at: now())
            } else {
                PasskeySignInLookup(challenge: try await passkeys.takePasskeyChallenge(hash: hash, at: now()), owner: nil)
            }
        guard let challenge = lookup.challenge, challenge.purpose == purpose else { throw PasskeyError.invalidChallenge }
        return (challenge, bytes, lookup.owner)
    }

    /// One options request from `client`, counted before any work in one store step per network.
    package func admit(_ client: ClientInfo) async throws {
        for (index, network) in client.limitKeys.enumerated() {
            let limit = ClientNetwork.limit(ceremoniesPerNetwork, widenedFor: index)
            guard try await limits.hit(RateLimitKeys.passkeyCeremonies(network), window: Self.window, at: now()) <= limit else {
                throw LimitReached.counted(.passkey, retryAfter: Int(Self.window))
            }
        }
    }

    // MARK: The account's passkeys

    package func list(_ user: User) async throws -> [PasskeyInfo] {
        try await passkeys.passkeys(of: user.id).map(Self.info)
    }

    package func rename(_ id: String, to name: String, user: User, client: ClientInfo) async throws -> PasskeyInfo {
        let name = try Self.validName(name)
        guard let credentialID = Base64URL.decode(id), try await passkeys.renamePasskey(credentialID: credentialID, userID: user.id, name: name),
            let renamed = try await passkeys.passkey(credentialID: credentialID)
        else { throw PasskeyError.notFound }
        return Self.info(renamed)
    }

    /// Removes one of the session's account's passkeys: a change to how the account signs in, so it takes a
    /// recent proof, as adding one does.
    package func delete(_ id: String, session: AuthenticatedSession, client: ClientInfo) async throws {
        let user = session.user
        guard let credentialID = Base64URL.decode(id) else { throw PasskeyError.notFound }
        try await stepUp.requireReauthentication(session)
        // Read for the notice's words only; the delete below is what decides.
        let name = try await passkeys.passkey(credentialID: credentialID)?.name ?? "Passkey"
        switch try await passkeys.deletePasskey(credentialID: credentialID, userID: user.id) {
        case .deleted:
            await audit.record(.passkeyRemoved, user: user.id, method: .passkey, client: client)
            await notices.send(.passkeyRemoved(name: name), to: user.id, client: client)
        case .notFound: throw PasskeyError.notFound
        case .lastWayToSignIn: throw PasskeyError.lastWayToSignIn
        }
    }

    package static func info(_ record: PasskeyRecord) -> PasskeyInfo {
        PasskeyInfo(
            id: Base64URL.encode(record.credentialID), name: record.name, authenticator: AuthenticatorNames.name(aaguid: record.aaguid),
            synced: record.backedUp,
            createdAt: record.createdAt.timeIntervalSince1970, lastUsedAt: record.lastUsedAt?.timeIntervalSince1970, flagged: record.flagged)
    }

    /// A name as the account page shows it: cleaned as every shown label is (`DisplayText`), 1 to
    /// `maximumNameLength` characters, and nothing over 4 KiB read at all.
    package static func validName(_ raw: String) throws -> String {
        guard raw.utf8.count <= 4096 else { throw PasskeyError.invalidName }
        let name = DisplayText.clean(raw)
        guard (1...maximumNameLength).contains(name.count) else { throw PasskeyError.invalidName }
        return name
    }

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        passkeys: any PasskeyRepository, users: any UserRepository, limits: any RateLimitRepository, accounts: any AdminRepository, emailCodes: EmailCodeFlow,
        secondFactors: SecondFactorService, stepUp: StepUp, verifier: PasskeyVerifier, audit: AuditLog, notices: AccountNotices,
        ceremoniesPerNetwork: Int = Self.defaultCeremoniesPerNetwork, now: @escaping @Sendable () -> Date
    ) {
        self.passkeys = passkeys
        self.users = users
        self.limits = limits
        self.accounts = accounts
        self.emailCodes = emailCodes
        self.secondFactors = secondFactors
        self.stepUp = stepUp
        self.verifier = verifier
        self.audit = audit
        self.notices = notices
        self.ceremoniesPerNetwork = ceremoniesPerNetwork
        self.now = now
    }
}
