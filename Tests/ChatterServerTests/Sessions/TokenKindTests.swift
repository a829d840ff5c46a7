import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A native session's access token sent where its refresh token goes is an unknown refresh token on every
/// database: the tag covers the kind, so it names no session and ends none (it was "reuse" on SQLite).
@Suite(.tags(.bothDatabases)) struct TokenKindTests {
    @Test(arguments: StoreBackend.available)
    func anAccessTokenAtTheRefreshRouteIsRefusedAndEndsNothing(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let first = try await h.nativeSignIn(email: "ada@example.com")
            h.clock.advance(by: 1)
            let second = try h.decode(SessionResponse.self, try await h.post(NativePath.refresh, RefreshRequest(refreshToken: first.refreshToken)))
            // The superseded access token (the finding) and the current one.
            for token in [first.accessToken, second.accessToken] {
                let refused = try await h.post(NativePath.refresh, RefreshRequest(refreshToken: token))
                #expect(refused.status == .unauthorized)
                #expect(try h.error(refused).error == AuthErrorCode.invalidRefreshToken)
            }
            #expect(try await h.get(NativePath.me, bearer: second.accessToken).status == .ok, "the session lives on")
            h.clock.advance(by: 1)
            let third = try await h.post(NativePath.refresh, RefreshRequest(refreshToken: second.refreshToken))
            #expect(third.status == .ok, "and still refreshes")
        }
    }
}

/// Found in review: every refresh batch emptied the whole session cache, so a client refreshing in a loop
/// sent everyone's lookups to the database. A rotation now evicts the sessions it changed and no other.
@Suite(.tags(.bothDatabases)) struct SessionCacheEvictionTests {
    @Test(arguments: StoreBackend.available)
    func aRefreshEvictsOnlyTheSessionItRotated(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let cache = try #require((store as? SQLiteStore)?.sessionCache ?? (store as? PostgresStore)?.sessionCache)
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: Date(), mayCreate: true)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { Date() })
            let profile = UserProfile(id: user.id.uuidString, displayName: "Ada", email: nil, emailVerified: false, name: nil, methods: [])
            let started = try await withThrowingTaskGroup(of: SessionResponse.self) { group in
                for _ in 0..<20 { group.addTask { try await sessions.start(user: user, method: .email, client: ClientInfo(), profile: profile) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for session in started { _ = try await sessions.authenticate(session.accessToken) }
            #expect(cache.count == 20)
            // Five refreshes at once (one batch or several): exactly those five leave the cache.
            let refreshed = try await withThrowingTaskGroup(of: SessionService.RefreshResult.self) { group in
                for session in started.prefix(5) { group.addTask { try await sessions.refresh(session.refreshToken) { _, _ in profile } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(refreshed.allSatisfy { if case .refreshed = $0 { true } else { false } })
            #expect(cache.count == 15)
            for session in started.prefix(5) { #expect(try await sessions.authenticate(session.accessToken) == .unknown, "the rotated-away token") }
            for session in started.dropFirst(5) {
                guard case .valid = try await sessions.authenticate(session.accessToken) else {
                    Issue.record("a session that did not rotate was lost")
                    continue
                }
            }
        }
    }
}

extension TokenKindTests {
    /// A token named before the tag covered its kind (the form chatterd issued until this change), made here
    /// with the store's key: for one of a session's access tokens, refresh is refused and ends nothing; the
    /// session's current refresh token of that form still rotates, into tokens that carry their kind.
    @Test(arguments: StoreBackend.available)
    func aTokenNamedBeforeKindsWereTaggedRotatesOnlyAsTheCurrentRefreshToken(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(IdentityClaims(key: .email("ada@example.com")), fallbackName: "Ada", at: Date(), mayCreate: true)
            let sessions = SessionService(store: store, lifetimes: .init(), now: { Date() })
            let profile = UserProfile(id: user.id.uuidString, displayName: "Ada", email: nil, emailVerified: false, name: nil, methods: [])
            let started = try await sessions.start(user: user, method: .email, client: ClientInfo(), profile: profile)
            let id = try #require(UUID(uuidString: started.sessionID))
            func legacy() -> String {
                let named = id.bytes + SecureRandom.bytes(SessionTokenKey.randomBytes)
                return Data(named + store.tokenKey.tag(named)).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            }
            let oldAccess = legacy()
            #expect(store.tokenKey.session(namedWithoutKindBy: oldAccess) == id && store.tokenKey.session(namedBy: oldAccess, as: .refresh) == nil)
            guard case .invalid = try await sessions.refresh(oldAccess, profile: { _, _ in profile }) else {
                Issue.record("a kind-less token that is not the current refresh token was not refused")
                return
            }
            guard case .valid = try await sessions.authenticate(started.accessToken) else {
                Issue.record("the session was ended")
                return
            }
            guard case .refreshed(let next) = try await sessions.refresh(started.refreshToken, profile: { _, _ in profile }) else {
                Issue.record("the session no longer refreshes")
                return
            }
            #expect(store.tokenKey.session(namedBy: next.refreshToken, as: .refresh) == id)

            // A session whose refresh token is of the old form (issued before the upgrade) still refreshes.
            let oldID = UUID()
            let now = Date()
            let named = oldID.bytes + SecureRandom.bytes(SessionTokenKey.randomBytes)
            let oldRefresh = Data(named + store.tokenKey.tag(named)).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            try await store.createSession(
                NewSession(
                    id: oldID, userID: user.id, method: "email", accessHash: SessionToken.generate().hash, accessExpiresAt: now.addingTimeInterval(60),
                    refreshHash: SessionToken.hash(oldRefresh), createdAt: now, absoluteExpiresAt: now.addingTimeInterval(86_400), client: ClientInfo(),
                    accessTokenNamed: true))
            guard case .refreshed(let rotated) = try await sessions.refresh(oldRefresh, profile: { _, _ in profile }) else {
                Issue.record("a session's current refresh token of the old form did not rotate")
                return
            }
            #expect(rotated.sessionID == oldID.text && store.tokenKey.session(namedBy: rotated.refreshToken, as: .refresh) == oldID)
        }
    }
}
