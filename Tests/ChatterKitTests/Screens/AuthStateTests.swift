import Foundation
import Testing

@testable import ChatterKit

/// The auth state a root view switches on (F5), following the session manager's events.
@Suite struct AuthStateTests {
    @Test func followsSignInAndARevocationByTheServer() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            let other = server.client()
            let auth = await AuthState(sessions: client.sessions)
            #expect(await auth.phase == .starting)
            let following = Task { await auth.run() }
            defer { following.cancel() }
            #expect(await eventually { await auth.phase == .signedOut(reason: nil) })
            #expect(await auth.notice == nil, "nothing ended: no notice")

            let session = try await client.signInByEmail(on: server)
            #expect(await eventually { await auth.phase == .signedIn(session) })
            #expect(await auth.isSignedIn)

            server.clock.advance(by: 61)
            try await other.signInByEmail(on: server)
            try await other.sessions.signOut(all: true)
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await client.me() }
            #expect(await eventually { await auth.phase == .signedOut(reason: .revoked) })
            #expect(await auth.notice == ChatterError.signedOut(.revoked).message)
        }
    }

    @Test func aStoredSessionPastItsEndIsExpiredAndALockedDeviceWaits() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            try await server.client(store: store).signInByEmail(on: server)
            server.clock.advance(by: 400 * 86_400)  // past any session's absolute end
            let expired = await AuthState(sessions: server.client(store: store).sessions)
            let following = Task { await expired.run() }
            defer { following.cancel() }
            #expect(await eventually { if case .expired = await expired.phase { true } else { false } })
            #expect(await expired.isSignedIn == false)

            server.clock.advance(by: 61)
            let locked = MemoryStore()
            let client = server.client(store: locked)
            try await client.signInByEmail(on: server)
            locked.setFailure(.unavailable("device locked"))
            let relaunched = server.client(store: locked)
            let waiting = await AuthState(sessions: relaunched.sessions)
            let followingLocked = Task { await waiting.run() }
            defer { followingLocked.cancel() }
            #expect(await eventually { await waiting.phase == .storageUnavailable })
            #expect(await waiting.notice == "Unlock this device to continue.")
            locked.setFailure(nil)
            _ = try await relaunched.me()
            #expect(await eventually { await waiting.isSignedIn }, "readable again, the next request announces the session")

            // Or, without a request, when the app says protected data is available.
            let again = MemoryStore()
            try await server.client(store: again).signInByEmail("grace@example.com", on: server)
            again.setFailure(.unavailable("device locked"))
            let second = await AuthState(sessions: server.client(store: again).sessions)
            let followingSecond = Task { await second.run() }
            defer { followingSecond.cancel() }
            #expect(await eventually { await second.phase == .storageUnavailable })
            again.setFailure(nil)
            await second.retryStorage()
            #expect(await second.isSignedIn, "readable again: signed in, never signed out")
        }
    }
}
