import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// The behaviour every `SecretStore` promises, run against each store that can run here.
enum StoreConformance {
    static func check(_ store: any SecretStore, key: String = "conformance.\(UUID().uuidString)") async throws {
        #expect(try await store.read(key) == nil, "absent is nil, not an error")
        try await store.delete(key)

        let first = Data("first value".utf8)
        try await store.write(first, for: key)
        #expect(try await store.read(key) == first)

        let binary = Data((0...255).map { UInt8($0) })
        try await store.write(binary, for: key)
        #expect(try await store.read(key) == binary, "a write replaces, and bytes survive as they are")

        let other = key + ".other"
        try await store.write(Data("other".utf8), for: other)
        try await store.delete(key)
        #expect(try await store.read(key) == nil)
        #expect(try await store.read(other) == Data("other".utf8), "deleting one key leaves the others")
        try await store.delete(other)
        #expect(try await store.read(other) == nil)
    }
}

@Suite struct StoreConformanceTests {
    @Test func memoryStore() async throws {
        try await StoreConformance.check(MemoryStore())
    }

    @Test func fileStore() async throws {
        try await withTemporaryDirectory { try await StoreConformance.check(FileStore(directory: $0 + "/store")) }
    }

    @Test func keychainStoreOverTheStandIn() async throws {
        try await StoreConformance.check(KeychainStore(service: "chatter.tests", functions: KeychainStandIn().functions))
    }

    #if os(Linux)
        @Test func secretServiceStore() async throws {
            let store = SecretServiceStore(service: "chatter.tests.\(UUID().uuidString)")
            try await KeyringAvailability.require(store)
            try await StoreConformance.check(store)
        }
    #endif

    @Test func memoryStoreFailuresAreThrown() async throws {
        let store = MemoryStore()
        store.setFailure(.unavailable("locked"))
        await #expect(throws: StorageError.unavailable("locked")) { try await store.read("x") }
        await #expect(throws: StorageError.unavailable("locked")) { try await store.write(Data(), for: "x") }
    }
}

#if os(Linux)
    /// The Secret Service tests need a running keyring (CI starts gnome-keyring under dbus-run-session via
    /// .ci/keyring-tests). Without one they print why and are skipped, unless CHATTER_REQUIRE_KEYRING=1
    /// says the keyring must be there, which turns the skip into a failure.
    enum KeyringAvailability {
        static func require(_ store: SecretServiceStore) async throws {
            if await store.isReachable() { return }
            let reason = "no Secret Service keyring is reachable (run .ci/keyring-tests to start one)"
            if ProcessInfo.processInfo.environment["CHATTER_REQUIRE_KEYRING"] == "1" { throw Missing(reason: reason) }
            print("skipping: \(reason)")
            try Test.cancel("\(reason)")
        }

        struct Missing: Error, CustomStringConvertible {
            var reason: String
            var description: String { "CHATTER_REQUIRE_KEYRING=1 but \(reason)" }
        }
    }
#endif
