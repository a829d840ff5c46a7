import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Notices to an account's owner, on every backend: bounded per hour however many arrive at once, the
/// device named as the request named it (cleaned), never anything but chatterd's own words, and the
/// account's counter gone with the account.
@Suite(.tags(.bothDatabases)) struct AccountNoticeTests {
    @Test(arguments: StoreBackend.available)
    func fortyNoticesAtOnceSendTenAndOneSayingThereIsMoreAndTheCounterGoesWithTheAccount(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let session = try await SecondFactorTests().signUp(h)
            let userID = try #require(UUID(uuidString: session.user.id))
            let notices = h.services.secondFactors.notices
            let before = h.mail.count(to: SecondFactorTests.email)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<40 { group.addTask { await notices.send(.passwordChanged, to: userID, client: ClientInfo(ip: "192.0.2.1")) } }
            }
            #expect(h.mail.count(to: SecondFactorTests.email) - before == AccountNotices.perHour + 1, "each counted in one store step")
            let more = h.mail.messages.filter { $0.subject == AccountNotice.moreChanges.subject }
            #expect(more.count == 1, "the first past the limit says more changes were made, once")
            h.clock.advance(by: 3601)
            await notices.send(.passwordChanged, to: userID, client: nil)
            #expect(h.mail.count(to: SecondFactorTests.email) - before == AccountNotices.perHour + 2, "the next hour sends again")

            #expect(try await h.store.count(RateLimitKeys.notices(userID), window: 3600, at: h.clock.now) == 1)
            try await h.store.deleteUser(id: userID)
            #expect(try await h.store.count(RateLimitKeys.notices(userID), window: 3600, at: h.clock.now) == 0, "deleted with the account")
        }
    }

    @Test func theDeviceLineNamesOnlyWhatChatterdKnowsAndTheWordsAreChatterdsOwn() throws {
        let hostile = ClientInfo(ip: "2001:db8::1", userAgent: "Evil\u{202E}Agent Click https://phish.example " + String(repeating: "x", count: 500))
        let body = AccountNotice.passkeyAdded(name: "Key\u{202E}moc.elgoog").body(from: hostile)
        #expect(!body.unicodeScalars.contains("\u{202E}"), "no bidi override from the client reaches the mail")
        #expect(!body.contains("phish.example"), "no words the client chose")
        #expect(body.contains("From: an unnamed browser or app, at 2001:db8::1"))
        let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
        #expect(AccountNotice.device(ClientInfo(ip: "192.0.2.7", userAgent: chrome)) == "Chrome on Windows, at 192.0.2.7")
        #expect(AccountNotice.device(ClientInfo(userAgent: "phish.example/1.0 ChatterKit/0.3")) == "Chatter app", "not the app name it claims")
        #expect(AccountNotice.device(nil) == "the server's operator")
        #expect(AccountNotice.device(ClientInfo()) == "an unnamed browser or app", "a request with nothing to name it is not the operator")
    }
}
