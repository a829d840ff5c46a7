import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything an app does with chatterd, over one session manager: sign in by any method, post and read
/// chatts, list and revoke sessions, sign out.
public struct ChatterClient: Sendable {
    /// The stateless API client this one sends through, for routes this type has no method for.
    public let api: ChatterAPI
    /// The session manager: subscribe to its `events()`, call its `start()` at launch, and sign out through it.
    public let sessions: SessionManager

    /// A client for the server `api` talks to, keeping the session in `store`. Processes sharing the store (an
    /// app and its extensions) pass one `coordinator` (`.appGroup(_:)` on Apple platforms), so they take turns
    /// refreshing. `now` is the clock that decides expiry (tests pass their own); an access token within
    /// `refreshLeeway` seconds of its end is refreshed before use. With `deviceKeys` (by default the Secure Enclave's
    /// where there is one, as in `Chatter`), native requests carry proofs of this install's key (DPoP), kept in
    /// `store`, and sessions signed in are bound to it: their tokens are worthless off the device. An app and its
    /// extensions sharing a store use the same kind of key. With `appAttest` (`SystemAppAttest()` in an app with the App
    /// Attest capability), the install's App Attest key is attested at the first sign-in and vouches for every sign-in
    /// after, so the session list shows the genuine app and a server that creates accounts only for attested installs
    /// (`--app-attest-sign-up`) lets this one sign up. Use one client per server and store in a process.
    public init(
        api: ChatterAPI, store: any SecretStore, coordinator: (any SessionCoordinator)? = nil,
        deviceKeys: (any DPoPKeyFactory)? = Chatter.systemDeviceKeys, appAttest: (any AppAttestProvider)? = nil,
        now: @escaping @Sendable () -> Date = Date.init, refreshLeeway: TimeInterval = 60
    ) {
        var api = api
        if let deviceKeys { api.dpop = DPoPProofs(store: store, coordinator: coordinator, keys: deviceKeys, now: now) }
        if let appAttest { api.vouching = AppAttestVouching(attestation: AppAttestation(api: api, store: store, provider: appAttest)) }
        self.api = api
        sessions = SessionManager(api: api, store: store, coordinator: coordinator, now: now, refreshLeeway: refreshLeeway)
    }

    /// A client over an existing session manager, sharing its session and its `api`.
    public init(sessions: SessionManager) {
        api = sessions.api
        self.sessions = sessions
    }

    // MARK: chatts

    /// The course timeline (`GET /getchatts`), oldest first. Needs no sign-in.
    public func courseChatts() async throws -> [ChattRow] {
        try await api.send("GET", "/getchatts")
    }

    /// One page of the native timeline, newest first; signed in or not.
    public func chatts(before cursor: String? = nil) async throws -> ChattPage {
        let path = NativePath.chatts + (cursor.map { "?before=" + (Self.queryEscape($0)) } ?? "")
        return try await api.send("GET", path)
    }

    /// Posts under the signed-in user: `/v1/chatts` for a native session, `/postauth` for a chatterID.
    public func post(_ message: String) async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            switch credential.kind {
            case .native:
                let _: ChattItem = try await api.send("POST", NativePath.chatts, body: NewChattRequest(message: message), bearer: credential.accessToken)
                return EmptyResponse()
            case .course:
                return try await api.send("POST", "/postauth", body: PostAuthRequest(chatterID: credential.accessToken, message: message))
            }
        }
    }

    // MARK: account and sessions

    /// The signed-in user's profile. A course session has no profile route, so it gets a stand-in with only its
    /// display name.
    public func me() async throws -> UserProfile {
        try await sessions.authorized { credential, session in
            guard credential.kind == .native else {
                // The course API has no profile route: a chatterID knows only its name.
                return UserProfile(id: "", displayName: session.username, email: nil, emailVerified: false, name: nil, methods: ["google"])
            }
            return try await api.send("GET", NativePath.me, bearer: credential.accessToken)
        }
    }

    /// The user's active sessions (native sessions only).
    public func activeSessions() async throws -> [SessionInfo] {
        try await sessions.authorized { credential, _ in
            try await api.send("GET", NativePath.sessions, bearer: try Self.native(credential))
        }
    }

    /// What changed how the account signs in, newest first (native sessions only): passkeys and authenticators
    /// added or removed, recovery codes used, passwords changed or reset, other sessions ended, an operator's
    /// reset. The same events chatterd mails the owner about.
    public func accountHistory() async throws -> [AccountEvent] {
        try await sessions.authorized { credential, _ in
            try await api.send("GET", NativePath.accountHistory, bearer: try Self.native(credential))
        }
    }

    /// Ends one of the user's sessions, say a lost phone's, by its `SessionInfo.id` from `activeSessions()`. Native
    /// sessions only. Revoking this device's own session signs it out at its next request.
    public func revokeSession(id: String) async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send("DELETE", NativePath.sessions + "/" + Self.queryEscape(id), bearer: try Self.native(credential))
        }
    }

    /// A one-time link (valid for a minute) that signs a web view in with a cookie session (F3): load it
    /// in the web view; chatterd sets the cookie and redirects.
    public func webSessionURL() async throws -> URL {
        let answer: WebSessionResponse = try await sessions.authorized { credential, _ in
            try await api.send("POST", NativePath.webSession, bearer: try Self.native(credential))
        }
        return api.url(answer.url)
    }

    /// The request a web view loads to become signed in (F3): the one-time link from `webSessionURL()`, with
    /// the header that tells chatterd the app itself opened it, so the web view is signed in without a
    /// question. Opened any other way (a link in a page or a message), the link asks before signing in.
    public func webSessionRequest() async throws -> URLRequest {
        var request = URLRequest(url: try await webSessionURL())
        request.setValue(WebSessionResponse.appHeaderValue, forHTTPHeaderField: WebSessionResponse.appHeader)
        return request
    }

    /// Deletes the account on the server (every session, identity and chatt), then here.
    public func deleteAccount() async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send("DELETE", NativePath.me, bearer: try Self.native(credential))
        }
        await sessions.clear(.accountDeleted)
    }

    /// Changes the password; the server signs the user's other sessions out.
    public func changePassword(current: String, new: String) async throws {
        let _: EmptyResponse = try await sessions.authorized { credential, _ in
            try await api.send(
                "POST", NativePath.passwordChange, body: PasswordChangeRequest(currentPassword: current, newPassword: new),
                bearer: try Self.native(credential))
        }
    }

    static func native(_ credential: SessionCredential) throws -> String {
        guard credential.kind == .native else {
            throw ChatterError.server(
                status: 400, body: ErrorBody(error: "course_session", message: "This needs a native session; a course chatterID cannot do it."))
        }
        return credential.accessToken
    }

    static func queryEscape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
