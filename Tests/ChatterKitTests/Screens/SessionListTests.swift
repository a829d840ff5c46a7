import Foundation
import Testing

@testable import ChatterKit

/// The sessions screen's model (F5) against a live chatterd.
@Suite struct SessionListTests {
    @Test func listsThisDeviceFirstAndRevokingAnotherEndsItOnTheServer() async throws {
        try await LiveServer.run { server in
            let phone = server.client()
            let laptop = server.client()
            try await laptop.signInByEmail(on: server)
            server.clock.advance(by: 61)
            try await phone.signInByEmail(on: server)
            let list = await SessionList(client: laptop)
            await list.load()

            let rows = await list.rows
            #expect(rows.count == 2)
            #expect(rows.first?.isCurrent == true, "this device comes first, though the phone was used later")
            let expected = SessionList.Row.deviceName(userAgent: ChatterAPI.defaultUserAgent)
            #expect(expected.hasPrefix("Chatter app") || expected.contains(" on "))
            #expect(rows.map(\.device) == [expected, expected])
            let other = try #require(rows.last)
            #expect(await list.revokeTitle(for: other) == "Revoke")
            await list.revoke(other)

            #expect(await list.rows.map(\.id) == [rows[0].id])
            #expect(await list.errorMessage == nil)
            await #expect(throws: ChatterError.signedOut(.revoked)) { try await phone.me() }
            #expect(try await laptop.me().email == "ada@example.com", "revoking another session leaves this one signed in")

            // The account's history shows it, by this device, as chatterd recorded it.
            await list.load()
            let history = await list.history
            #expect(history.map(\.title) == ["A session was ended"])
            #expect(history.first?.device == expected)
        }
    }

    @Test func revokingThisDevicesRowSignsOutHere() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let client = server.client(store: store)
            try await client.signInByEmail(on: server)
            let list = await SessionList(client: client)
            await list.load()
            let current = try #require(await list.rows.first)
            #expect(await list.revokeTitle(for: current) == "Sign out")
            await list.revoke(current)

            #expect(await list.signedOutHere)
            #expect(await list.rows.isEmpty)
            #expect(store.keys.contains(StoreKey.session) == false, "the stored session is gone, not left to fail later")
            #expect(await list.canRevoke(current) == false)
            await #expect(throws: ChatterError.notSignedIn) { try await client.activeSessions() }
        }
    }

    @Test func anUnreachableServerKeepsTheRowAndSaysWhy() async throws {
        try await LiveServer.run { server in
            let transport = SwitchableTransport()
            let client = server.client(transport: transport)
            let other = server.client()
            try await client.signInByEmail(on: server)
            server.clock.advance(by: 61)
            try await other.signInByEmail(on: server)
            let list = await SessionList(client: client)
            await list.load()
            transport.setDown(true)
            let row = try #require(await list.rows.last)
            await list.revoke(row)
            #expect(await list.rows.count == 2)
            #expect(await list.errorMessage?.contains("Cannot reach the server") == true)
            #expect(await list.revoking.isEmpty, "the button works again")
            #expect(try await other.me().email == "ada@example.com")
        }
    }

    @Test func theDefaultUserAgentNamesTheAppAndTheDevice() {
        #expect(
            ChatterAPI.userAgent(appName: "CourseChat", appVersion: "1.2", system: "iOS 18.1", machine: "iPhone15,2")
                == "CourseChat/1.2 ChatterKit/\(ChatterKit.version) (iOS 18.1; iPhone15,2)")
        // Whatever a bundle says, it stays one header line of token characters.
        let odd = ChatterAPI.userAgent(appName: "Evil\r\nX-Admin: 1 (é)", appVersion: "1 beta", system: "iOS 18.1", machine: "x);(")
        #expect(odd == "Evil-X-Admin--1----/1-beta ChatterKit/\(ChatterKit.version) (iOS 18.1; x)")
        #expect(
            ChatterAPI.userAgent(appName: nil, appVersion: "1", system: "Linux 6.1", machine: "x86_64")
                == "ChatterKit/\(ChatterKit.version) (Linux 6.1; x86_64)")
        #expect(ChatterAPI.defaultUserAgent.contains("ChatterKit/\(ChatterKit.version) ("))
        #expect(SessionList.Row.deviceName(userAgent: ChatterAPI.defaultUserAgent) != "Unknown device")
    }

    @Test func deviceNamesComeFromTheUserAgent() {
        let names: [(String?, String)] = [
            (nil, "Unknown device"), ("", "Unknown device"), ("chatter/0.2.0 (terminal)", "chatter (terminal)"),
            ("ChatterKit/0.2.0", "Chatter app"), ("CourseChat/1.2 ChatterKit/0.3.0 (iOS 18.1; iPhone15,2)", "CourseChat on iPhone"),
            ("Notes/3 ChatterKit/0.3.0 (macOS 15.1; arm64)", "Notes on Mac"), ("ChatterKit/0.3.0 (watchOS 11.0; Watch7,1)", "Chatter app on Apple Watch"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15", "iPhone"),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15", "Mac"),
            ("Mozilla/5.0 (X11; Linux x86_64) Chrome/120", "Linux"), ("Mozilla/5.0 (Linux; Android 14)", "Android"),
            ("Chatter/1 CFNetwork/1490 Darwin/23.0.0", "Apple device"), ("curl/8.0", "Unknown device"),
        ]
        for (agent, name) in names {
            #expect(SessionList.Row.deviceName(userAgent: agent) == name, "\(agent ?? "nil")")
        }
        let now = Date().timeIntervalSince1970
        let row = SessionList.Row(SessionInfo(id: "s", userAgent: nil, createdAt: now - 86_400, lastUsedAt: now, current: false))
        #expect(row.detail.hasPrefix("Signed in ") && row.detail.hasSuffix("used just now"))
        let older = SessionList.Row(SessionInfo(id: "s", userAgent: nil, createdAt: now - 86_400, lastUsedAt: now - 7_200, current: false))
        #expect(older.detail.contains("2 hours ago"))
        let vouched = SessionList.Row(
            SessionInfo(id: "s", userAgent: nil, createdAt: now - 86_400, lastUsedAt: now, current: false, attestedApp: "ABCDE12345.com.example.chatter"))
        #expect(vouched.isVerifiedApp && vouched.detail.hasSuffix("used just now · verified app"))
        #expect(!row.isVerifiedApp)
    }
}
