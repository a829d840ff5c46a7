import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit

/// One observable entry point for SwiftUI apps, a logging hook that never logs a secret, and errors that
/// describe themselves (issue "ChatterKit on a real iPhone", item 5).
@MainActor @Suite struct ChatterEntryPointTests {
    @Test func signedInIsAValueThatFollowsTheSession() async throws {
        try await LiveServer.run { server in
            let lines = Mutex<[RequestLog]>([])
            let chatter = await Chatter(server: server.baseURL, store: MemoryStore(), log: { entry in lines.withLock { $0.append(entry) } })
            #expect(await chatter.phase == .starting)
            let following = Task { await chatter.run() }
            defer { following.cancel() }
            #expect(await eventually { await chatter.phase == .signedOut(reason: nil) })
            #expect(await chatter.isSignedIn == false)

            let session = try await chatter.client.signInByEmail(on: server)
            #expect(await eventually { await chatter.isSignedIn })
            #expect(await chatter.session == session)
            #expect(try await chatter.signOut())
            #expect(await eventually { await chatter.phase == .signedOut(reason: .userRequested) })

            // Every exchange was logged, by route and status, and no line holds a secret.
            let logged = lines.withLock { $0 }
            #expect(logged.map(\.path).contains(NativePath.emailVerify))
            #expect(logged.allSatisfy { $0.status != nil })
            let text = logged.map(\.description).joined(separator: "\n")
            let code = try #require(server.mail.lastCode(to: "ada@example.com"))
            #expect(!text.contains(code), "the emailed code is never logged")
            #expect(!text.contains("ada@example.com"))
            #expect(!text.contains("Bearer"))
        }
    }

    @Test func aRefusedRequestIsLoggedWithItsCodeAndAnUnreachableOneWithoutAStatus() async throws {
        try await LiveServer.run { server in
            let lines = Mutex<[RequestLog]>([])
            var api = server.api()
            api.log = { entry in lines.withLock { $0.append(entry) } }
            let client = ChatterClient(api: api, store: MemoryStore())
            await #expect(throws: ChatterError.self) { try await client.signIn(email: "ada@example.com", password: "wrong password 1") }
            let refused = try #require(lines.withLock { $0.last })
            #expect(refused.status == 401 && refused.error == "invalid_credentials")
            #expect(refused.description.hasPrefix("POST \(NativePath.passwordSignIn) → 401 invalid_credentials ("))

            var unreachable = ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!)
            unreachable.log = { entry in lines.withLock { $0.append(entry) } }
            await #expect(throws: ChatterError.self) { let _: UserProfile = try await unreachable.send("GET", NativePath.me + "?x=secret") }
            let failed = try #require(lines.withLock { $0.last })
            #expect(failed.status == nil && failed.path == NativePath.me, "no query string is logged")
        }
    }

    @Test func errorsDescribeThemselvesToFoundation() {
        let error: any Error = ChatterError.signedOut(.expired)
        #expect(error.localizedDescription == "The session has expired. Sign in again.")
        #expect((ChatterError.storage(.misconfigured("x")) as any Error).localizedDescription.contains("not set up"))
    }
}

/// The privacy manifest ships with the SDK and declares the required-reason APIs it uses.
@Suite struct PrivacyManifestTests {
    @Test func declaresUserDefaultsAndBootTimeAndNoTracking() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ChatterKit/PrivacyInfo.xcprivacy")
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: path), format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        let types = (plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? []).compactMap { $0["NSPrivacyAccessedAPIType"] as? String }
        #expect(Set(types) == ["NSPrivacyAccessedAPICategoryUserDefaults", "NSPrivacyAccessedAPICategorySystemBootTime"])
        // FirstRunGuard is the one user of UserDefaults: if that changes, so must the manifest.
        let sources = try FileManager.default.subpathsOfDirectory(atPath: path.deletingLastPathComponent().path).filter { $0.hasSuffix(".swift") }
        let users = try sources.filter {
            try String(contentsOf: path.deletingLastPathComponent().appendingPathComponent($0), encoding: .utf8).contains("UserDefaults")
        }
        #expect(users == ["Storage/FirstRunGuard.swift"])
    }

    @Test func theChangelogsTopEntryIsThisVersion() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        #expect(top.hasPrefix("## \(ChatterKit.version) "), "CHANGELOG.md's top entry is \(top)")
        // The README's install line names the same release, so an app copying it gets what the changelog describes.
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(#"from: "\#(ChatterKit.version)", traits: [])"#), "README.md's install line names another version")
    }
}
