import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterServer

/// Notices to an account's owner, on every backend: bounded per hour however many arrive at once, the
/// device named as the request named it (cleaned), never anything but chatterd's own words, and the
/// account's counter gone with the account.
@Suite struct AccountNoticeTests {
    @Test(arguments: StoreBackend.available)
    func fortyNoticesAtOnceSendTenAndTheCounterGoesWithTheAccount(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let session = try await SecondFactorTests().signUp(h)
            let userID = try #require(UUID(uuidString: session.user.id))
            let notices = h.services.secondFactors.notices
            let before = h.mail.count(to: SecondFactorTests.email)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<40 { group.addTask { await notices.send(.passwordChanged, to: userID, client: ClientInfo(ip: "192.0.2.1")) } }
            }
            #expect(h.mail.count(to: SecondFactorTests.email) - before == AccountNotices.perHour, "each counted in one store step")
            h.clock.advance(by: 3601)
            await notices.send(.passwordChanged, to: userID, client: nil)
            #expect(h.mail.count(to: SecondFactorTests.email) - before == AccountNotices.perHour + 1, "the next hour sends again")

            #expect(try await h.store.count(RateLimitKeys.notices(userID), window: 3600, at: h.clock.now) == 1)
            try await h.store.deleteUser(id: userID)
            #expect(try await h.store.count(RateLimitKeys.notices(userID), window: 3600, at: h.clock.now) == 0, "deleted with the account")
        }
    }

    @Test func theDeviceLineIsCleanedAndCutAndTheWordsAreChatterdsOwn() throws {
        let hostile = ClientInfo(ip: "2001:db8::1", userAgent: "Evil\u{202E}Agent\n\nClick https://phish.example " + String(repeating: "x", count: 500))
        let body = AccountNotice.passkeyAdded(name: "Key\u{202E}moc.elgoog").body(from: hostile)
        #expect(!body.unicodeScalars.contains("\u{202E}"), "no bidi override from the client reaches the mail")
        let line = try #require(body.split(separator: "\n").first { $0.hasPrefix("From: ") })
        #expect(line.count <= "From: ".count + 120 + ", at ".count + 64)
        #expect(line.hasSuffix(", at 2001:db8::1"))
        #expect(AccountNotice.device(nil) == "the server's operator")
        #expect(AccountNotice.device(ClientInfo(ip: "192.0.2.7")) == "an unnamed device at 192.0.2.7")
    }
}
