import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// chatterd starts only with the key its sealed data was sealed under: a key is made only for a database
/// that holds nothing sealed, and a lost or swapped key file stops the start with what to do, never a new
/// key that would lock every authenticator out.
@Suite struct SealingKeyCheckTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A SQLite store in `dir` and the default key file's path beside it.
    func withStore(_ body: (SQLiteStore, _ keyPath: String, _ dir: String) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await SQLiteStore.open(path: dir + "/chatterd.sqlite")
            do {
                try await body(store, dir + "/second-factor.key", dir)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    func sealSomething(in store: SQLiteStore) async throws {
        let user = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "1"), "Ada")
        #expect(try await store.storePendingTOTP(userID: user.id, sealedSecret: [1, 2, 3], at: now))
    }

    @Test func aNewDatabaseGetsAKeyAndItsFingerprint() async throws {
        try await withStore { store, path, _ in
            let key = try await SealingKeyCheck.key(at: path, create: true, store: store, now: now)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try await store.sealingKeyFingerprint() == SealingKeyCheck.fingerprint(of: key))
            #expect(try await SealingKeyCheck.key(at: path, create: true, store: store, now: now) == key, "the next start reads the same key")
        }
    }

    @Test func aLostKeyFileStopsTheStartAndNoNewKeyIsMade() async throws {
        try await withStore { store, path, _ in
            _ = try await SealingKeyCheck.key(at: path, create: true, store: store, now: now)
            try await sealSomething(in: store)
            try FileManager.default.removeItem(atPath: path)
            let refused = await #expect(throws: ConfigurationError.self) { try await SealingKeyCheck.key(at: path, create: true, store: store, now: now) }
            #expect(refused?.description.contains("restore it from the backup") == true, "\(String(describing: refused))")
            #expect(!FileManager.default.fileExists(atPath: path), "no key was made in its place")
        }
    }

    @Test func aSwappedKeyFileStopsTheStart() async throws {
        try await withStore { store, path, dir in
            let key = try await SealingKeyCheck.key(at: path, create: true, store: store, now: now)
            try await sealSomething(in: store)
            let other = dir + "/other.key"
            _ = try SecondFactorKey.ensure(at: other)
            let refused = await #expect(throws: ConfigurationError.self) { try await SealingKeyCheck.key(at: other, create: false, store: store, now: now) }
            #expect(refused?.description.contains("is not the key the database's secrets are sealed under") == true, "\(String(describing: refused))")
            #expect(try await SealingKeyCheck.key(at: path, create: false, store: store, now: now) == key, "the right file still starts")
        }
    }

    /// A database sealed by a chatterd from before fingerprints: its key, when present, is recorded; when
    /// missing, no new key is made over its sealed data.
    @Test func aDatabaseFromBeforeFingerprintsKeepsItsKeyOrStops() async throws {
        try await withStore { store, path, _ in
            try await sealSomething(in: store)
            await #expect(throws: ConfigurationError.self, "sealed data, no key: no new key") {
                _ = try await SealingKeyCheck.key(at: path, create: true, store: store, now: now)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            let key = try SecondFactorKey.ensure(at: path)  // the operator restores it
            #expect(try await SealingKeyCheck.key(at: path, create: true, store: store, now: now) == key)
            #expect(try await store.sealingKeyFingerprint() == SealingKeyCheck.fingerprint(of: key))
        }
    }
}
