import Foundation

/// The token a request carries, and which API it belongs to.
public struct SessionCredential: Sendable, Equatable {
    /// The bearer token (native) or the chatterID (course). It is a secret: never log it.
    public var accessToken: String
    /// Which API the token is for: a native token goes in `Authorization: Bearer`, a chatterID in the course API's
    /// body.
    public var kind: AuthSession.Kind
}

extension SessionManager {
    /// Runs `operation` with a valid token. A native token about to expire is refreshed first; a 401 that
    /// says the token expired refreshes and retries once; a 401 that says the session is gone deletes it
    /// and throws `ChatterError.signedOut`. Every other failure leaves the session as it is.
    public func authorized<T: Sendable>(_ operation: @Sendable (SessionCredential, AuthSession) async throws -> T) async throws -> T {
        var used = try await usableSession()
        do {
            return try await operation(used.credential, used.publicView)
        } catch {
            used = try await recover(from: error, using: used)
        }
        do {
            return try await operation(used.credential, used.publicView)
        } catch {
            // A second 401 can still mean the session is gone; it never triggers another retry.
            _ = try await recover(from: error, using: used, mayRefresh: false)
            throw error
        }
    }

    /// The stored session, refreshed first when its access token is (nearly) over.
    func usableSession() async throws -> StoredSession {
        if !loaded, case .storageUnavailable(let error) = await load() { throw ChatterError.storage(error) }
        await flushStorage()
        guard let session else { throw ChatterError.notSignedIn }
        if session.kind == .native, session.status(at: now(), leeway: refreshLeeway) != .valid {
            return try await refresh(from: session)
        }
        return session
    }

    /// Refreshes now, whatever the access token's remaining time.
    @discardableResult
    public func refresh() async throws -> AuthSession {
        if !loaded, case .storageUnavailable(let error) = await load() { throw ChatterError.storage(error) }
        guard let session else { throw ChatterError.notSignedIn }
        return try await refresh(from: session).publicView
    }

    /// Joins the refresh in flight, or starts the one refresh every caller then shares. The task is not
    /// a child of any caller, so a caller that is cancelled never abandons a rotated refresh token.
    func refresh(from used: StoredSession) async throws -> StoredSession {
        if let refreshTask { return try await refreshTask.value }
        // Someone refreshed (or signed in again) since `used` was read: its token is already current.
        if let session, session.accessToken != used.accessToken { return session }
        guard used.refreshToken != nil else { throw ChatterError.notSignedIn }
        let task = Task { try await self.refreshInTurn(used) }
        refreshTask = task
        defer { refreshTask = nil }
        return try await task.value
    }

    /// Refreshes only when storage can take the rotated pair (a pair that cannot be stored is lost with the
    /// app), and in this process's turn with the others sharing the store. The turn (a file lock in the app group's
    /// container) is held to decide and to store, never across the request: iOS kills an app suspended while it
    /// holds such a lock (0xdead10cc). A lease in the store tells the others a refresh is under way meanwhile.
    private func refreshInTurn(_ used: StoredSession) async throws -> StoredSession {
        do {
            try await store.checkAvailable()
        } catch {
            throw ChatterError.storage(error)
        }
        return try await BackgroundCompletion.run("Refreshing the Chatter session") {
            while true {
                switch try await self.takingTurn(orUnlocked: false, { try await self.decide(used) }) {
                case .current(let session):
                    return session
                case .wait:
                    // Another process is refreshing: what it stores is the answer.
                    try? await Task.sleep(for: .milliseconds(20))
                case .refresh(let token, let stored):
                    let response: SessionResponse
                    do {
                        response = try await self.exchange(token)
                    } catch {
                        await self.releaseLease()
                        throw error
                    }
                    return try await self.takingTurn(orUnlocked: true) { try await self.adopt(response, for: token, over: stored) }
                }
            }
        }
    }

    /// What a refresh of `used` comes to, decided in the turn.
    private enum RefreshStep: Sendable {
        /// The session is already current (another process refreshed or signed in): no request.
        case current(StoredSession)
        /// Another process holds the lease: wait for what it stores.
        case wait
        /// This process refreshes `token` (its lease taken); `stored` is what storage held.
        case refresh(token: String, stored: StoredSession?)
    }

    /// Adopts what another process stored since `used` was read, waits for one that is refreshing, or takes the lease
    /// to refresh `used`. Runs inside the turn, so it never takes one (a second lock in the same process would wait
    /// for itself).
    private func decide(_ used: StoredSession) async throws -> RefreshStep {
        var stored: StoredSession?
        if coordinator != nil {
            if await refreshingElsewhere() { return .wait }
            if !unsaved, await storedStillHolds(used) {
                // Nobody wrote since `used` was read, as its unprotected stamp says: the Face ID-protected session is
                // not read again (a prompt in the foreground, a failure in the background).
                stored = used
            } else {
                stored = try await readStored()
                if !unsaved, let stored, stored.differs(from: used) {
                    // Another process refreshed or signed in: its tokens are current, and ours are retired.
                    adoptStored(stored, replacing: used)
                    return .current(stored)
                }
                if stored == nil, !unsaved {
                    // Another process signed out.
                    if session?.refreshToken == used.refreshToken {
                        await forget()
                        broadcast(.signedOut(.userRequested))
                    }
                    throw ChatterError.signedOut(.userRequested)
                }
            }
        }
        guard let token = used.refreshToken else { throw ChatterError.notSignedIn }
        if coordinator != nil { try await RefreshLease(owner: leaseOwner, until: Date().addingTimeInterval(RefreshLease.lifetime)).write(to: store) }
        return .refresh(token: token, stored: stored)
    }

    /// The refresh request itself, outside the turn. A 401 that ends the session forgets it here.
    private func exchange(_ token: String) async throws -> SessionResponse {
        do {
            return try await api.send("POST", NativePath.refresh, body: RefreshRequest(refreshToken: token))
        } catch let error as ChatterError {
            // 401, or 400 where the refresh token is bound to a key this device no longer holds.
            if case .server(let status, let body) = error, status == 401 || status == 400,
                let reason = Self.terminalReason(body, kind: .native, provesKey: api.dpop != nil)
            {
                // Only if nobody signed in again meanwhile: that newer session is not the one refused.
                if session?.refreshToken == token {
                    await forget()
                    broadcast(.signedOut(reason))
                }
                throw ChatterError.signedOut(reason)
            }
            throw error
        }
    }

    /// Stores the answer to the refresh of `token` and gives the lease back, in the turn.
    private func adopt(_ response: SessionResponse, for token: String, over stored: StoredSession?) async throws -> StoredSession {
        // Stored before anything else looks at the answer: the old refresh token is already retired. A
        // sign-in that happened meanwhile replaced the session this refresh was for, and stays.
        let fresh = StoredSession(native: response, at: now())
        guard session?.refreshToken == token else {
            await releaseLease()
            // A sign-in (or sign-out) happened meanwhile: callers go on with what is current, not with this family.
            if let session { return session }
            throw ChatterError.notSignedIn
        }
        let saved = await persist(fresh, over: stored)
        // After the write: a process that waited for the lease then finds the new session stored.
        await releaseLease()
        broadcast(.refreshed(saved.publicView))
        return saved
    }

    /// Gives this process's lease back, if it holds one.
    private func releaseLease() async {
        guard coordinator != nil, let lease = await RefreshLease.read(from: store), lease.owner == leaseOwner else { return }
        try? await store.delete(StoreKey.refreshLease)
    }

    /// Takes `stored` (another process's newer session) as this one's, unless a sign-in here replaced `used`.
    private func adoptStored(_ stored: StoredSession, replacing used: StoredSession) {
        guard session?.accessToken == used.accessToken else { return }
        session = stored
        broadcast(.refreshed(stored.publicView))
    }

    /// What to retry with after `error`, or the error to give up with. `waited`: whether another process's refresh
    /// was already waited for.
    func recover(from error: any Error, using used: StoredSession, mayRefresh: Bool = true, waited: Bool = false) async throws -> StoredSession {
        guard case ChatterError.server(401, let body) = error else { throw error }
        // A refresh under way retires the old access token on the server before its answer reaches us, so
        // a 401 for the old token then says nothing about the session: wait for the refresh and retry.
        if let refreshTask {
            let fresh = try await refreshTask.value
            if fresh.accessToken != used.accessToken { return fresh }
        }
        if let session, session.accessToken != used.accessToken { return session }
        // So can another process's refresh: what it stored is the session now.
        if coordinator != nil, !unsaved, let stored = try? await readStored(), stored.differs(from: used) {
            adoptStored(stored, replacing: used)
            return stored
        }
        let code = body?.code
        if mayRefresh, code == .accessTokenExpired, used.kind == .native {
            return try await refresh(from: used)
        }
        guard let reason = Self.terminalReason(body, kind: used.kind, provesKey: api.dpop != nil) else { throw error }
        // So can another process's refresh whose answer is not stored yet: once it is given back, everything above is
        // looked at again (this process may have signed in or out meanwhile). One wait: a later lease is a later
        // refresh, which finds the answer of this one stored.
        if !waited, try await waitForRefreshElsewhere() {
            return try await recover(from: error, using: used, mayRefresh: mayRefresh, waited: true)
        }
        if session?.accessToken == used.accessToken, await !clear(reason, ending: used), let session {
            return session
        }
        throw ChatterError.signedOut(reason)
    }

    /// Waits while another process sharing the store holds the refresh lease; returns whether it did. Only the lease
    /// is read (no Face ID-protected session); a lease ends within `RefreshLease.lifetime`, or with its process.
    /// Throws `CancellationError` when the caller's task is cancelled meanwhile.
    private func waitForRefreshElsewhere() async throws -> Bool {
        guard coordinator != nil, !unsaved else { return false }
        var waited = false
        while await refreshingElsewhere() {
            try await Task.sleep(for: .milliseconds(20))
            waited = true
        }
        return waited
    }

    /// Whether another process sharing the store holds a refresh lease that is still to be waited for.
    private func refreshingElsewhere() async -> Bool {
        guard let lease = await RefreshLease.read(from: store) else { return false }
        return lease.owner != leaseOwner && lease.holds(at: Date())
    }

    /// For the app coming to the foreground: refreshes a native session whose access token is (nearly) over,
    /// so the first request after a long pause does not wait for it. A network failure is tried again after
    /// 1, 2 and 4 seconds; the server's refusal, a signed-out device and unavailable storage are not.
    public func refreshIfNeeded(retries: Int = 3) async {
        for attempt in 0...retries {
            if attempt > 0 { try? await Task.sleep(for: .seconds(1 << (attempt - 1))) }
            guard !Task.isCancelled else { return }
            do {
                guard case .expiring = await status() else { return }
                _ = try await usableSession()
                return
            } catch ChatterError.network {
                continue
            } catch {
                return
            }
        }
    }

    /// The 401 answers that end a session for good. The course API's `/postauth` says only "401", so any
    /// 401 ends a course session; native answers must name a terminal code.
    /// `provesKey`: this client sends proofs of a device key. One that does not (an extension set up without
    /// `deviceKeys`) is refused a bound session's tokens too, and that says nothing about the session.
    static func terminalReason(_ body: ErrorBody?, kind: AuthSession.Kind, provesKey: Bool) -> SignOutReason? {
        switch body?.code {
        case .refreshTokenReused: return .refreshTokenReused
        case .invalidAccessToken, .invalidRefreshToken: return .revoked
        case .expiredSession: return .expired
        // The session is bound to another key than this install's (the key was lost with a restore or reset): no
        // proof this device can make will ever do.
        case .invalidDPoPProof where provesKey && body?.check == DPoPProofs.sessionKeyCheck: return .revoked
        default: return kind == .course ? .revoked : nil
        }
    }
}

extension StoredSession {
    var credential: SessionCredential { SessionCredential(accessToken: accessToken, kind: kind) }
}
