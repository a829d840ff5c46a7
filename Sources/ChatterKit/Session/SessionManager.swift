import Foundation

/// Owns the signed-in session: restores it at start, hands out a valid token, refreshes it (once, however
/// many requests need it), stores rotated tokens before anything else, and signs out only when the server
/// says the session is over. Publishes every change as `AuthEvent`s.
public actor SessionManager {
    /// The API the manager refreshes and signs out through.
    public nonisolated let api: ChatterAPI
    let store: any SecretStore
    let now: @Sendable () -> Date
    /// A native access token this close to its end is refreshed before use.
    public nonisolated let refreshLeeway: TimeInterval

    var session: StoredSession?
    var loaded = false
    /// Listeners were told `.storageUnavailable`; the first successful read tells them what it found.
    var owesInitialSession = false
    /// A session the store refused to take (unavailable right now); saved again before the next use.
    var unsaved = false
    /// A delete the store refused; retried before the next use so a revoked session cannot come back.
    var undeleted = false
    var refreshTask: Task<StoredSession, any Error>?
    var listeners: [UUID: AsyncStream<AuthEvent>.Continuation] = [:]
    /// The last storage failure, for an app that wants to warn that the session lives only in memory.
    public private(set) var storageProblem: StorageError?

    /// A manager keeping the session in `store`; `ChatterClient.init(api:store:now:refreshLeeway:)` makes one for
    /// you. `now` decides expiry; `refreshLeeway` is in seconds. Use one manager per store: two would refresh the
    /// same session on their own.
    public init(api: ChatterAPI, store: any SecretStore, now: @escaping @Sendable () -> Date = Date.init, refreshLeeway: TimeInterval = 60) {
        self.api = api
        self.store = store
        self.now = now
        self.refreshLeeway = refreshLeeway
    }

    // MARK: state

    /// Reads the stored session and reports it; listeners receive it as `.initialSession`.
    @discardableResult
    public func start() async -> LaunchState {
        let wasOwed = owesInitialSession
        let state = await load()
        if case .storageUnavailable = state {
            owesInitialSession = true
            broadcast(.initialSession(state))
        } else if !wasOwed {
            broadcast(.initialSession(state))
        }
        return state
    }

    /// Reads the stored session again if storage could not be read before; listeners then receive
    /// `.initialSession` with what it holds. Call it when protected data becomes available (UIKit's
    /// `protectedDataDidBecomeAvailableNotification`, or the scene becoming active); without it, the
    /// next request reads storage, and the event comes then.
    @discardableResult
    public func retryStorage() async -> LaunchState {
        await status()
    }

    /// The session as it stands, without touching the network.
    public var state: LaunchState {
        guard let session else { return .signedOut }
        switch session.status(at: now(), leeway: refreshLeeway) {
        case .valid: return .valid(session.publicView)
        case .expiring: return .expiring(session.publicView)
        case .expired: return .expired(session.publicView)
        }
    }

    /// The signed-in session, or nil, as held in memory: nil until `start()` (or a request) has read storage.
    public var currentSession: AuthSession? { session?.publicView }

    /// The state, reading storage first if nothing has been read yet.
    public func status() async -> LaunchState {
        loaded ? state : await load()
    }

    /// Auth changes from now on, starting with the current state (once the session has been read).
    public func events() -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthEvent.self)
        let id = UUID()
        listeners[id] = continuation
        if loaded { continuation.yield(.initialSession(state)) }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeListener(id) }
        }
        return stream
    }

    func removeListener(_ id: UUID) { listeners[id] = nil }

    func broadcast(_ event: AuthEvent) {
        for continuation in listeners.values { continuation.yield(event) }
    }

    func load() async -> LaunchState {
        let data: Data?
        do {
            data = try await store.read(StoreKey.session)
        } catch {
            storageProblem = error
            return .storageUnavailable(error)
        }
        // Unreadable data (an older format) is treated as no session; it is overwritten at the next sign-in.
        session = data.flatMap { try? JSONDecoder().decode(StoredSession.self, from: $0) }
        loaded = true
        if !unsaved, !undeleted { storageProblem = nil }
        if owesInitialSession {
            owesInitialSession = false
            broadcast(.initialSession(state))
        }
        return state
    }

    // MARK: sign-in and sign-out

    /// Adopts a session from a native sign-in answer.
    @discardableResult
    public func signIn(_ response: SessionResponse) async -> AuthSession {
        await adopt(StoredSession(native: response, at: now()), event: AuthEvent.signedIn)
    }

    /// Adopts a course-API session (`/adduser`).
    @discardableResult
    public func signIn(course response: AddUserResponse) async -> AuthSession {
        await adopt(StoredSession(course: response, at: now()), event: AuthEvent.signedIn)
    }

    func adopt(_ fresh: StoredSession, event: (AuthSession) -> AuthEvent) async -> AuthSession {
        await persist(fresh)
        loaded = true
        broadcast(event(fresh.publicView))
        return fresh.publicView
    }

    /// Writes `fresh` to storage, then adopts it. When storage refuses, the session is still adopted in
    /// memory (the server has already issued it, and a rotated refresh token exists nowhere else) and the
    /// write is retried before the next use.
    func persist(_ fresh: StoredSession) async {
        do {
            try await store.write(JSONEncoder().encode(fresh), for: StoreKey.session)
            unsaved = false
            undeleted = false
            storageProblem = nil
        } catch let error as StorageError {
            unsaved = true
            storageProblem = error
        } catch {
            unsaved = true
            storageProblem = .failed("cannot encode the session")
        }
        session = fresh
    }

    /// Signs this device out: revokes the session on the server (every session of the user with `all`)
    /// and deletes it here. Returns whether the server confirmed; the local session is deleted either
    /// way, except that `all` keeps it when the server could not be told, so the user can try again.
    @discardableResult
    public func signOut(all: Bool = false) async throws -> Bool {
        if !loaded, case .storageUnavailable(let error) = await load() { throw ChatterError.storage(error) }
        guard let current = session else { return false }
        var confirmed = false
        if current.kind == .native {
            do {
                let _: EmptyResponse = try await authorized { token, _ in
                    try await self.api.send("POST", NativePath.signOut, body: SignOutRequest(all: all), bearer: token.accessToken)
                }
                confirmed = true
            } catch ChatterError.signedOut {
                return true
            } catch {
                if all { throw error }
            }
        }
        await clear(.userRequested)
        return confirmed
    }

    /// Forgets the session here and tells listeners why.
    func clear(_ reason: SignOutReason) async {
        session = nil
        loaded = true
        unsaved = false
        do {
            try await store.delete(StoreKey.session)
            undeleted = false
        } catch {
            undeleted = true
            storageProblem = error
        }
        broadcast(.signedOut(reason))
    }

    /// Retries a write or delete that storage refused earlier.
    func flushStorage() async {
        if unsaved, let session { await persist(session) }
        if undeleted {
            do {
                try await store.delete(StoreKey.session)
                undeleted = false
            } catch {
                storageProblem = error
            }
        }
    }
}
