import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterServer

/// A native session's access token sent where its refresh token goes is an unknown refresh token on every
/// database: the tag covers the kind, so it names no session and ends none (it was "reuse" on SQLite).
@Suite struct TokenKindTests {
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
