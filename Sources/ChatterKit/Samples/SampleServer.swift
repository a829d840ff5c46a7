import Foundation

/// A stand-in chatterd in memory with a few chatts, one account and its sessions, for SwiftUI previews
/// and demos: every screen's requests get a plausible answer without a network. Not for tests of
/// behaviour; those run against a real chatterd.
public struct SampleServer: HTTPTransport {
    /// The sample account's display name.
    public static let username = "Ada Lovelace"

    /// A transport answering like chatterd with sample data.
    public init() {}

    /// Answers `request` from the sample data; a path chatterd does not serve gets its 404.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let path = request.url.path
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
        ]
        var key = request.method + " " + path
        if request.method == "DELETE", path.hasPrefix(NativePath.sessions + "/") { key = "DELETE " + NativePath.sessions + "/{id}" }
        guard let answer = routes[key] else {
            return TransportResponse(status: 404, body: try JSONEncoder().encode(ErrorBody(error: ErrorCode.notFound.rawValue, message: "No such route.")))
        }
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(answer))
    }

    static let profile = UserProfile(
        id: "sample-user", displayName: username, email: "ada@example.com", emailVerified: true,
        name: NameParts(givenName: "Ada", familyName: "Lovelace"), methods: ["google", "password"])

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
            SessionInfo(id: "sample-session", userAgent: "ChatterKit/\(ChatterKit.version)", createdAt: now - 86_400, lastUsedAt: now, current: true),
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
    public static func sample(signedIn: Bool = true) -> ChatterClient {
        let stored = signedIn ? try? JSONEncoder().encode(StoredSession(native: SampleServer.session, at: Date())) : nil
        let store = MemoryStore(stored.map { [StoreKey.session: $0] } ?? [:])
        return ChatterClient(api: ChatterAPI(baseURL: URL(string: "https://chatter.example")!, transport: SampleServer()), store: store)
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
