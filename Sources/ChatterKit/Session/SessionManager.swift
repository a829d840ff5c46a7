import Foundation

/// Owns the signed-in session: restores it at start, hands out a valid token, refreshes it (once, however
/// many requests need it, and with a `coordinator` once however many processes share the store), stores
/// rotated tokens before anything else, and signs out only when the server says the session is over.
/// Publishes every change as `AuthEvent`s.
public actor SessionManager {
    /// The API the manager refreshes and signs out through.
    public nonisolated let api: ChatterAPI
    let store: any SecretStore
    /// Turns taken with the other processes sharing `store`, or nil when this process is its only user.
    let coordinator: (any SessionCoordinator)?
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
    /// The session that delete was for: with a shared store, only that one is deleted later, not one another
    /// process stored since.
    var undeletedSession: StoredSession?
    var refreshTask: Task<StoredSession, any Error>?
    var listeners: [UUID: AsyncStream<AuthEvent>.Continuation] = [:]
    /// This manager's name in a `RefreshLease` it takes.
    let leaseOwner = UUID()
    /// The last storage failure, for an app that wants to warn that the session lives only in memory.
    public private(set) var storageProblem: StorageError?

    /// A manager keeping the session in `store`; `ChatterClient.init(api:store:coordinator:now:refreshLeeway:)` makes
    /// one for you. `now` decides expiry; `refreshLeeway` is in seconds. Use one manager per store in a process;
    /// processes that share a store (an app and its extensions) pass the same `coordinator`, so only one of them
    /// refreshes at a time and the others adopt what it stored.
    public init(
        api: ChatterAPI, store: any SecretStore, coordinator: (any SessionCoordinator)? = nil, now: @escaping @Sendable () -> Date = Date.init,
        refreshLeeway: TimeInterval = 60
    ) {
        self.api = api
        self.store = store
        self.coordinator = coordinator
        self.now = now
        self.refreshLeeway = refreshLeeway
    }

    // MARK: state

    /// Reads the stored session and reports it; listeners receive it as `.initialSession`. Once a session has
    /// been read (or signed in), later calls report the one in memory without reading again: it may be newer
    /// than the stored one, and a read could find storage locked or ask for Face ID again.
    @discardableResult
    public func start() async -> LaunchState {
        if loaded {
            await flushStorage()
            return state
        }
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
            // In its turn: another process replacing a protected item (delete, then add) is never seen halfway.
            data = try await takingTurn(orUnlocked: true) { try await self.store.read(StoreKey.session) }
        } catch {
            let error = (error as? StorageError) ?? .failed("\(error)")
            storageProblem = error
            return loaded ? state : .storageUnavailable(error)
        }
        // A sign-in that finished while this read waited holds a newer session than the one read.
        if loaded { return state }
        // Unreadable data (an older format) is treated as no session; it is overwritten at the next sign-in.
        session = StoredSession.decode(data)
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
        // Shared with other processes, the stored generation counts too: theirs may be ahead of ours. A sign-in
        // is stored even when the turn cannot be had: it is the newest session there is.
        let stored =
            (try? await takingTurn(orUnlocked: true) {
                await self.persist(fresh, over: self.coordinator != nil ? try? await self.readStored() : nil)
            }) ?? fresh
        loaded = true
        broadcast(event(stored.publicView))
        return stored.publicView
    }

    /// Writes `fresh` to storage with the next generation number, then adopts it; `over` is what storage held,
    /// read in the same turn. When storage refuses (after two quick retries), the session is still adopted in
    /// memory (the server has already issued it, and a rotated refresh token exists nowhere else), the older one
    /// is deleted from storage, so that no later launch presents a refresh token the server has retired, and the
    /// write is retried before the next use.
    @discardableResult
    func persist(_ fresh: StoredSession, over stored: StoredSession? = nil) async -> StoredSession {
        var fresh = fresh
        fresh.generation = max(session?.generation ?? 0, stored?.generation ?? 0) + 1
        session = fresh
        switch await save(fresh) {
        case .saved:
            unsaved = false
            undeleted = false
            storageProblem = nil
        case .superseded:
            break  // a newer session took its place while this one waited to be retried; that one is stored
        case .failed:
            unsaved = true
            try? await store.delete(StoreKey.session)
        }
        return fresh
    }

    private enum SaveOutcome {
        case saved, superseded, failed
    }

    /// Writes the session, trying twice more after a short wait (a keychain busy with another process, say)
    /// unless retrying cannot help. Stops as soon as the session in memory is another one: the wait lets other
    /// calls in, and an older session written after a newer one would put a retired refresh token in storage.
    private func save(_ pending: StoredSession) async -> SaveOutcome {
        guard let data = try? JSONEncoder().encode(pending) else {
            storageProblem = .failed("cannot encode the session")
            return .failed
        }
        for attempt in 0..<3 {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(50 * attempt)) }
            guard session == pending else { return .superseded }
            do {
                // The stamp first: storage may then hold a stamp newer than its session (a reader reads the session to
                // see), never one of an older session than it holds (a reader would trust its own retired tokens).
                try await writeStamp(of: pending)
                try await store.write(data, for: StoreKey.session)
                return .saved
            } catch {
                storageProblem = error
                switch error {
                case .misconfigured, .protectionUnavailable, .denied: return .failed  // the same answer again
                case .unavailable, .failed: continue
                }
            }
        }
        return .failed
    }

    /// Writes `session`'s stamp, or, when that fails, deletes the one there; throws when neither works, and nothing
    /// may then be written after it.
    private func writeStamp(of session: StoredSession) async throws(StorageError) {
        do {
            try await store.write(session.stamp, for: StoreKey.sessionStamp)
        } catch {
            try await store.delete(StoreKey.sessionStamp)
        }
    }

    /// Whether storage holds a session, told by its unprotected stamp: no Face ID prompt. False for a session
    /// written before stamps existed, until its next write.
    public func hasStoredSession() async -> Bool {
        ((try? await store.read(StoreKey.sessionStamp)) ?? nil) != nil
    }

    /// Whether the stamp says storage still holds `session`; false when it cannot say (another stamp, none, unreadable),
    /// and the session itself must be read.
    func storedStillHolds(_ session: StoredSession) async -> Bool {
        (try? await store.read(StoreKey.sessionStamp)) == session.stamp
    }

    /// The session storage holds now (what another process may have stored), or nil.
    func readStored() async throws -> StoredSession? {
        do {
            return StoredSession.decode(try await store.read(StoreKey.session))
        } catch {
            throw ChatterError.storage(error)
        }
    }

    /// Runs `body` in this process's turn with the others sharing the store, or at once without a coordinator.
    /// When the turn cannot be had, `orUnlocked` runs `body` anyway (a sign-in, a sign-out, a read must happen);
    /// otherwise it throws `.storage(.unavailable)` without running it: a refresh never runs unlocked. What
    /// `body` throws is passed on, and `body` never runs twice.
    func takingTurn<T: Sendable>(orUnlocked: Bool, _ body: @Sendable () async throws -> T) async throws -> T {
        guard let coordinator else { return try await body() }
        do {
            return try await coordinator.exclusively(body)
        } catch let failure as SessionLockUnavailable {
            guard orUnlocked else { throw ChatterError.storage(.unavailable(failure.description)) }
            return try await body()
        }
    }

    /// Signs this device out: revokes the session on the server (every session of the user with `all`)
    /// and deletes it here. Returns whether the server confirmed; the local session is deleted either
    /// way, except that `all` keeps it when the server could not be told, so the user can try again.
    @discardableResult
    public func signOut(all: Bool = false) async throws -> Bool {
        try await signOut(all: all, reason: .userRequested)
    }

    /// Signs out as `signOut(all:)` does, telling listeners `reason`.
    func signOut(all: Bool, reason: SignOutReason) async throws -> Bool {
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
        await clear(reason)
        return confirmed
    }

    /// Forgets the session here and tells listeners why. With `ending`, the session the server refused: when
    /// another process sharing the store has stored a newer one since, that one is adopted instead, since it is
    /// not the one refused. Returns whether this device is now signed out.
    @discardableResult
    func clear(_ reason: SignOutReason, ending: StoredSession? = nil) async -> Bool {
        let newer: StoredSession? = try? await takingTurn(orUnlocked: true) {
            if let ending, self.coordinator != nil, await !self.unsaved, let stored = try? await self.readStored(), stored.differs(from: ending) {
                return stored
            }
            await self.forget()
            return nil
        }
        if let newer {
            session = newer
            broadcast(.refreshed(newer.publicView))
            return false
        }
        broadcast(.signedOut(reason))
        return true
    }

    func forget() async {
        let ended = session
        session = nil
        loaded = true
        unsaved = false
        await deleteStored(ending: ended)
    }

    /// Deletes the stored session; when storage refuses, remembers that `ending` is still to go.
    private func deleteStored(ending: StoredSession?) async {
        do {
            try await store.delete(StoreKey.sessionStamp)
            try await store.delete(StoreKey.session)
            undeleted = false
            undeletedSession = nil
        } catch {
            undeleted = true
            undeletedSession = ending
            storageProblem = error
        }
    }

    /// Retries a write or delete that storage refused earlier, in this process's turn, after reading what the
    /// others stored meanwhile: a session another process stored since (a new sign-in) is adopted rather than
    /// overwritten, and only the session that was meant to go is deleted.
    func flushStorage() async {
        guard unsaved || undeleted else { return }
        _ = try? await takingTurn(orUnlocked: true) { await self.flushTakingTurn() }
    }

    private func flushTakingTurn() async {
        let stored = coordinator != nil ? try? await readStored() : nil
        if unsaved, let pending = session {
            if let stored, stored.differs(from: pending) {
                // Another process stored a session after this one's write failed (which deleted the older one).
                session = stored
                unsaved = false
                broadcast(.refreshed(stored.publicView))
            } else {
                await persist(pending, over: stored)
            }
        }
        guard undeleted else { return }
        if let stored, let ended = undeletedSession, stored.differs(from: ended) {
            undeleted = false  // not the session that was to go: another process's, which stays
            undeletedSession = nil
            return
        }
        await deleteStored(ending: undeletedSession)
    }
}
