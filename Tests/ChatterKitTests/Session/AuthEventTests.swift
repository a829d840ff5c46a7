import Foundation
import Testing

@testable import ChatterKit

/// The README's event `switch`, kept here so it compiles and shows what it must: a relaunch whose access
/// token has lapsed (`.expiring`, the usual state after 15 minutes away) is signed in, not nothing.
@Suite struct AuthEventTests {
    static func readmeMessage(for event: AuthEvent) -> String {
        switch event {
        case .initialSession(.valid(let session)), .initialSession(.expiring(let session)),
            .signedIn(let session), .refreshed(let session):
            "signed in as \(session.username)"
        case .initialSession(.expired), .initialSession(.signedOut): "sign in to post"
        case .initialSession(.storageUnavailable): "locked"
        case .signedOut(let reason): "signed out: \(reason)"
        }
    }

    @Test func aLapsedAccessTokenAtLaunchIsStillSignedIn() {
        let session = AuthSession(
            kind: .native, username: "Ada", user: nil, sessionID: nil, accessExpiresAt: Date(timeIntervalSinceNow: -60),
            refreshExpiresAt: Date(timeIntervalSinceNow: 86400))
        #expect(Self.readmeMessage(for: .initialSession(.expiring(session))) == "signed in as Ada")
        #expect(Self.readmeMessage(for: .initialSession(.expired(session))) == "sign in to post")
        #expect(Self.readmeMessage(for: .initialSession(.storageUnavailable(.unavailable("the device is locked")))).hasPrefix("locked"))
    }
}
