import ChatterTestSupport
import Foundation
import SQLiteNIO
import Testing

@testable import ChatterServer

/// What only a file-backed database shows: persistence, WAL mode, versioned migrations.
@Suite struct SQLiteFileTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func everythingSurvivesAReopen() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            let token = SessionToken.generate()
            var store = try await SQLiteStore.open(path: path)
            let user = try await store.signIn(IdentityKey(issuer: "i", subject: "s"), "Ada")
            try await store.createSession(NewSession(
                userID: user.id, method: "google", accessHash: token.hash, accessExpiresAt: now.addingTimeInterval(3600), refreshHash: nil,
                createdAt: now, absoluteExpiresAt: now.addingTimeInterval(3600), client: ClientInfo()))
            let chatt = Chatt(name: "Ada", message: "hello", time: now, userID: user.id)
            try await store.addChatt(chatt)
            try await store.close()

            store = try await SQLiteStore.open(path: path)
            #expect(try await store.user(id: user.id) == user)
            guard case .valid(let session) = try await store.session(accessHash: token.hash, at: now) else {
                Issue.record("session lost across a reopen")
                return
            }
            #expect(session.user == user)
            #expect(try await store.allChatts() == [chatt])
            try await store.close()
        }
    }

    @Test func opensInWALModeAndMigratesOnce() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            try await SQLiteStore.open(path: path).close()
            try await SQLiteStore.open(path: path).close()  // re-running the migrations is a no-op
            let raw = try await SQLiteConnection.open(storage: .file(path: path))
            #expect(try await raw.query("PRAGMA journal_mode").first?.column("journal_mode")?.string == "wal")
            #expect(try await raw.query("PRAGMA user_version").first?.column("user_version")?.integer == SQLiteMigrations.all.count)
            try await raw.close()
        }
    }

    @Test func newerSchemaIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/chatterd.sqlite"
            try await SQLiteStore.open(path: path).close()
            let raw = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await raw.query("PRAGMA user_version = 99")
            try await raw.close()
            await #expect(throws: StoreError.newerSchema(found: 99, supported: SQLiteMigrations.all.count)) {
                try await SQLiteStore.open(path: path)
            }
        }
    }
}
