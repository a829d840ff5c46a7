import Foundation

/// A stand-in chatterd in memory with a few chatts, one account and its sessions, for SwiftUI previews
/// and demos: every screen's requests get a plausible answer without a network. Not for tests of
/// behaviour; those run against a real chatterd.
public struct SampleServer: HTTPTransport {
    /// The sample account's display name.
    public static let username = "Ada Lovelace"
    /// The code the sample's authenticator app shows, which its second step and step-up take.
    public static let appCode = "123456"
    /// One of the sample's recovery codes, which they take too.
    public static let recoveryCode = "ABCDE-23456"

    /// Whether the sample account has an authenticator app: a password or code sign-in then asks for its code, and
    /// actions that matter ask to confirm it is you until a code or a passkey does.
    public let secondFactor: Bool
    private let steppedUp = Locked(false)

    /// A transport answering like chatterd with sample data; with `secondFactor`, the account has an authenticator
    /// app (`appCode` and `recoveryCode` work).
    public init(secondFactor: Bool = false) {
        self.secondFactor = secondFactor
    }

    /// Answers `request` from the sample data; a path chatterd does not serve gets its 404.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let path = request.url.path
        let key = request.method + " " + path
        if secondFactor, let answer = try twoStep(key, request) { return answer }
        let routes: [String: any Encodable & Sendable] = [
            "GET /getchatts": Self.chatts,
            "POST /adduser": AddUserResponse(username: Self.username, chatterID: "sample-chatter-id", lifetime: 3_600),
            "POST /postauth": EmptyResponse(),
            "GET " + NativePath.passwordPolicy: PasswordPolicy(minimumLength: 8, maximumLength: 64, maximumBytes: 72, blocksCommonPasswords: true),
            "POST " + NativePath.emailCode: EmailCodeResponse(resendAfter: 60, expiresIn: 600),
            "POST " + NativePath.emailVerify: Self.session,
            "POST " + NativePath.passwordSignIn: Self.session,
            "POST " + NativePath.passwordSignUp: Self.session,
            "POST " + NativePath.google: Self.session,
            "POST " + NativePath.apple: Self.session,
            "POST " + NativePath.refresh: Self.session,
            "POST " + NativePath.signOut: EmptyResponse(),
            "POST " + NativePath.webSession: WebSessionResponse(url: "/", expiresIn: 60),
            "POST " + NativePath.chatts: ChattItem(id: UUID().uuidString, userID: "sample-user", name: Self.username, message: "", time: 0),
            "GET " + NativePath.me: Self.profile,
            "DELETE " + NativePath.me: EmptyResponse(),
            "GET " + NativePath.sessions: Self.sessions,
            "GET " + NativePath.accountHistory: [
                AccountEvent(kind: "passkey_added", at: Date().addingTimeInterval(-86_400).timeIntervalSince1970, userAgent: nil, byOperator: false)
            ],
            "DELETE " + NativePath.sessions + "/{id}": EmptyResponse(),
            "GET " + NativePath.passkeys: Self.passkeys,
            "POST " + NativePath.passkeySignInOptions: Self.requestOptions,
            "POST " + NativePath.passkeyStepUpOptions: Self.requestOptions,
            "POST " + NativePath.passkeyRegisterOptions: Self.creationOptions,
            "GET " + NativePath.secondFactor: SecondFactorStatus(
                enabled: secondFactor, pending: false, recoveryCodesLeft: secondFactor ? 9 : 0, enabledAt: secondFactor ? 1_790_000_000 : nil),
            "POST " + NativePath.secondFactorEnrol: TOTPEnrolment(
                secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
                uri: "otpauth://totp/Chatter:ada@example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Chatter"),
            "POST " + NativePath.secondFactorConfirm: Self.recoveryCodes,
            "POST " + NativePath.recoveryCodes: Self.recoveryCodes,
        ]
        var route = key
        if request.method == "DELETE", path.hasPrefix(NativePath.sessions + "/") { route = "DELETE " + NativePath.sessions + "/{id}" }
        guard let answer = routes[route] else {
            return TransportResponse(status: 404, body: try JSONEncoder().encode(ErrorBody(error: ErrorCode.notFound.rawValue, message: "No such route.")))
        }
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(answer))
    }

    /// The answers of an account with an authenticator app, where they differ; nil for the others.
    private func twoStep(_ key: String, _ request: TransportRequest) throws -> TransportResponse? {
        func code() -> String? { (try? JSONDecoder().decode(SecondFactorCodeRequest.self, from: request.body ?? Data()))?.code }
        func accepts(_ code: String?) -> Bool { code.map { $0 == Self.appCode || $0.uppercased() == Self.recoveryCode } ?? false }
        switch key {
        case "POST " + NativePath.passwordSignIn, "POST " + NativePath.emailVerify, "POST " + NativePath.google, "POST " + NativePath.apple:
            let challenge = SecondFactorChallenge(token: "sample-second-step", expiresIn: 300)
            return try Self.error(
                403, ErrorBody(error: ErrorCode.secondFactorRequired.rawValue, message: "Enter the code from your authenticator app.", secondFactor: challenge))
        case "POST " + NativePath.secondStep:
            let typed = (try? JSONDecoder().decode(SecondStepRequest.self, from: request.body ?? Data()))?.code
            guard accepts(typed) else { return try Self.error(401, ErrorBody(error: ErrorCode.invalidCode.rawValue, message: "That code is not right.")) }
            return try Self.ok(Self.session)
        case "POST " + NativePath.stepUp:
            guard accepts(code()) else { return try Self.error(401, ErrorBody(error: ErrorCode.invalidCode.rawValue, message: "That code is not right.")) }
            steppedUp.withLock { $0 = true }
            return TransportResponse(status: 204, body: Data())
        case "POST " + NativePath.passkeyStepUp:
            steppedUp.withLock { $0 = true }
            return TransportResponse(status: 204, body: Data())
        case "DELETE " + NativePath.me, "POST " + NativePath.passkeyRegisterOptions:
            return try stepUpRequired()
        case "POST " + NativePath.signOut:
            let all = (try? JSONDecoder().decode(SignOutRequest.self, from: request.body ?? Data()))?.all == true
            return all ? try stepUpRequired() : nil
        default:
            return nil
        }
    }

    /// 403 `step_up_required` until a code or a passkey confirmed it is you; nil (the usual answer) after.
    private func stepUpRequired() throws -> TransportResponse? {
        guard !steppedUp.withLock({ $0 }) else { return nil }
        return try Self.error(
            403, ErrorBody(error: ErrorCode.stepUpRequired.rawValue, message: "Confirm it is you first: enter the code from your authenticator app."))
    }

    static func ok(_ answer: some Encodable) throws -> TransportResponse {
        TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(answer))
    }

    static func error(_ status: Int, _ body: ErrorBody) throws -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(body))
    }

    static let recoveryCodes = RecoveryCodes(recoveryCodes: (0..<10).map { String(format: "ABCDE-%05d", 23456 + $0) })

    static let requestOptions = PasskeyRequestOptions(
        challenge: "c2FtcGxlLWNoYWxsZW5nZQ", timeout: 300_000, rpId: "chatter.example", userVerification: "required")

    static let creationOptions = PasskeyCreationOptions(
        rp: .init(id: "chatter.example", name: "Chatter"), user: .init(id: "c2FtcGxlLXVzZXI", name: "ada@example.com", displayName: username),
        challenge: "c2FtcGxlLWNoYWxsZW5nZQ", pubKeyCredParams: [.init(alg: -7)], timeout: 300_000, excludeCredentials: [],
        authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "required"), attestation: "none")

    static let profile = UserProfile(
        id: "sample-user", displayName: username, email: "ada@example.com", emailVerified: true,
        name: NameParts(givenName: "Ada", familyName: "Lovelace"), methods: ["google", "password", "passkey"])

    static let session = SessionResponse(
        accessToken: "sample-access", refreshToken: "sample-refresh", tokenType: "Bearer", expiresIn: 900,
        refreshExpiresIn: 2_592_000, sessionID: "sample-session", user: profile)

    static var chatts: [ChattRow] {
        let now = Date()
        let lines = [
            ("Ada Lovelace", "The engine weaves algebraic patterns."), ("Charles Babbage", "Posting from the Difference Engine."),
            ("Grace Hopper", "Found a moth in the relay."),
        ]
        return lines.enumerated().map { index, line in
            let time = now.addingTimeInterval(Double(index - lines.count) * 600)
            return ChattRow(name: line.0, message: line.1, id: UUID().uuidString, time: time.formatted(.iso8601))
        }
    }

    static var passkeys: [PasskeyInfo] {
        let now = Date().timeIntervalSince1970
        return [
            PasskeyInfo(
                id: "c2FtcGxlLXBob25l", name: "iPhone", authenticator: "iCloud Keychain", synced: true, createdAt: now - 2_592_000,
                lastUsedAt: now - 3_600, flagged: false),
            PasskeyInfo(
                id: "c2FtcGxlLWtleQ", name: "Security key", authenticator: "YubiKey 5 Series", synced: false, createdAt: now - 604_800,
                lastUsedAt: nil, flagged: false),
        ]
    }

    static var sessions: [SessionInfo] {
        let now = Date().timeIntervalSince1970
        return [
            SessionInfo(
                id: "sample-session", userAgent: "ChatterKit/\(ChatterKit.version)", createdAt: now - 86_400, lastUsedAt: now, current: true,
                attestedApp: "ABCDE12345.com.example.chatter"),
            SessionInfo(
                id: "sample-laptop", userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)", createdAt: now - 604_800, lastUsedAt: now - 3_600,
                current: false),
            SessionInfo(
                id: "sample-terminal", userAgent: "chatter/\(ChatterKit.version) (terminal)", createdAt: now - 1_209_600, lastUsedAt: now - 172_800,
                current: false),
        ]
    }
}

extension ChatterClient {
    /// A client of `SampleServer`, signed in as its sample account unless `signedIn` is false: what
    /// SwiftUI previews of ChatterUI's screens use.
    /// With `secondFactor`, the account has an authenticator app (`SampleServer(secondFactor:)`): previews of the
    /// second step and of "confirm it is you".
    public static func sample(signedIn: Bool = true, secondFactor: Bool = false) -> ChatterClient {
        let stored = signedIn ? try? JSONEncoder().encode(StoredSession(native: SampleServer.session, at: Date())) : nil
        let store = MemoryStore(stored.map { [StoreKey.session: $0] } ?? [:])
        return ChatterClient(
            api: ChatterAPI(baseURL: URL(string: "https://chatter.example")!, transport: SampleServer(secondFactor: secondFactor)), store: store)
    }
}

/// A passkey authenticator for previews and demos: every request ends as a cancelled sheet does, so a
/// preview's buttons do nothing and show no error.
public struct SamplePasskeys: PasskeyAuthenticator {
    /// An authenticator that never makes or uses a passkey.
    public init() {}

    /// Ends as a cancelled sheet.
    public func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON { throw ChatterError.cancelled }

    /// Ends as a cancelled sheet.
    public func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON {
        throw ChatterError.cancelled
    }
}

extension StepUpPrompt {
    /// A prompt of the sample account asking as `ask` does, for previews of "confirm it is you".
    public static func sample(asking ask: Ask, purpose: Purpose = .deleteAccount) -> StepUpPrompt {
        let prompt = StepUpPrompt(client: .sample(secondFactor: ask == .secondFactor), authenticator: SamplePasskeys())
        prompt.showForPreview(ask, purpose: purpose)
        return prompt
    }
}
