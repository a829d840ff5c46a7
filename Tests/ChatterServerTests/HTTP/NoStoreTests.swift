import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Every answer that carries a secret or a profile says `Cache-Control: no-store`, so no shared or
/// private cache (a proxy, the app's URLCache) keeps a token or a person's data.
@Suite struct NoStoreTests {
    @Test func tokensProfilesAndErrorsAreNeverCached() async throws {
        try await Harness.run { h async throws in
            let token = try h.issuer.sign(TestIssuer.claims(subject: "7", now: h.clock.now))
            let signIn = try await h.post(NativePath.google, GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID))
            let session = try h.decode(SessionResponse.self, signIn)
            let course = try await h.post("/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: token))
            let answers = [
                ("sign-in", signIn), ("/adduser", course),
                ("refresh", try await h.post(NativePath.refresh, RefreshRequest(refreshToken: session.refreshToken))),
                ("profile", try await h.get(NativePath.me, bearer: session.accessToken)),
                ("sessions", try await h.get(NativePath.sessions, bearer: session.accessToken)),
                ("hand-off", try await h.post(NativePath.webSession, json: "", bearer: session.accessToken)),
                ("an error", try await h.get(NativePath.me, bearer: "not-a-token")),
            ]
            for (name, answer) in answers {
                #expect(answer.status.code < 500, "\(name): \(answer.status)")
                #expect(answer.headers[.cacheControl] == "no-store", "\(name)")
            }
        }
    }
}
