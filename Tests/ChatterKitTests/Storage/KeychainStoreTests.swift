import Foundation
import Testing

@testable import ChatterKit

/// KeychainStore's own code (query building, protection, status mapping) against the Security stand-in.
@Suite struct KeychainStoreTests {
    let keychain = KeychainStandIn()

    func store(_ accessControl: KeychainStore.AccessControl? = nil, accessibility: KeychainStore.Accessibility = .afterFirstUnlockThisDeviceOnly)
        -> KeychainStore
    {
        KeychainStore(
            service: "com.example.chatter", accessGroup: "TEAM.shared", accessibility: accessibility, accessControl: accessControl,
            functions: keychain.functions)
    }

    @Test func itemsAreThisDeviceOnlyAndNeverSynchronized() async throws {
        try await store().write(Data("s".utf8), for: "session")
        let item = try #require(keychain.items.first)
        #expect(item.attributes[kSecClass as String] as? String == kSecClassGenericPassword as String)
        #expect(item.attributes[kSecAttrService as String] as? String == "com.example.chatter")
        #expect(item.attributes[kSecAttrAccount as String] as? String == "session")
        #expect(item.attributes[kSecAttrAccessGroup as String] as? String == "TEAM.shared")
        #expect(item.attributes[kSecAttrSynchronizable as String] as? Bool == false)
        #expect(item.attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        #expect(item.attributes[kSecUseDataProtectionKeychain as String] as? Bool == true)
    }

    @Test func aCommandLineToolUsesTheLoginKeychain() async throws {
        let store = KeychainStore(service: "chatter", dataProtectionKeychain: false, functions: keychain.functions)
        try await store.write(Data("s".utf8), for: "session")
        #expect(keychain.items.first?.attributes[kSecUseDataProtectionKeychain as String] == nil)
        #expect(try await store.read("session") == Data("s".utf8))
    }

    @Test func aSecondWriteUpdatesTheItemInPlace() async throws {
        let store = store()
        try await store.write(Data("one".utf8), for: "session")
        try await store.write(Data("two".utf8), for: "session")
        #expect(keychain.items.count == 1)
        #expect(try await store.read("session") == Data("two".utf8))
    }

    @Test func accessControlReplacesAccessibilityAndAsksForPresence() async throws {
        let store = store(.biometryCurrentSet)
        try await store.write(Data("s".utf8), for: "session")
        let item = try #require(keychain.items.first)
        let control = try #require(item.attributes[kSecAttrAccessControl as String] as? KeychainStandIn.AccessControlObject)
        #expect(control.control == .biometryCurrentSet)
        #expect(control.accessibility == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        #expect(item.attributes[kSecAttrAccessible as String] == nil)

        #expect(try await store.read("session") == Data("s".utf8))
        #expect(keychain.presenceChecks == 1)
        keychain.set(presence: .cancelled)
        await #expect(throws: StorageError.denied("the user cancelled (errSecUserCanceled)")) { try await store.read("session") }
        keychain.set(presence: .fails)
        await #expect(throws: StorageError.denied("authentication failed (errSecAuthFailed)")) { try await store.read("session") }
    }

    @Test func failsClosedWhenAccessControlCannotBeCreated() async throws {
        keychain.set(canCreateAccessControl: false)
        await #expect(throws: StorageError.self) { try await store(.userPresence).write(Data("s".utf8), for: "session") }
        #expect(keychain.items.isEmpty, "nothing is stored unprotected")
    }

    @Test func aLockedDeviceIsUnavailableNotSignedOut() async throws {
        let whenUnlocked = store(accessibility: .whenUnlockedThisDeviceOnly)
        try await whenUnlocked.write(Data("s".utf8), for: "session")
        keychain.set(device: .locked)
        do {
            _ = try await whenUnlocked.read("session")
            Issue.record("read a when-unlocked item on a locked device")
        } catch {
            guard case .unavailable = error else {
                Issue.record("\(error)")
                return
            }
        }

        // After-first-unlock items stay readable while locked, which is why they are the default.
        let afterFirstUnlock = store()
        try await afterFirstUnlock.write(Data("t".utf8), for: "other")
        #expect(try await afterFirstUnlock.read("other") == Data("t".utf8))
        keychain.set(device: .beforeFirstUnlock)
        await #expect(throws: StorageError.self) { try await afterFirstUnlock.read("other") }
    }

    @Test func aLockedDeviceAtLaunchIsNotASignOut() async throws {
        let store = store(accessibility: .whenUnlockedThisDeviceOnly)
        let session = StoredSession(course: AddUserResponse(username: "Ada", chatterID: "chatter-id", lifetime: 3600), at: Date())
        try await store.write(JSONEncoder().encode(session), for: StoreKey.session)
        keychain.set(device: .locked)

        let manager = SessionManager(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: store)
        guard case .storageUnavailable(.unavailable) = await manager.start() else {
            Issue.record("locked storage read as \(await manager.state)")
            return
        }
        #expect(keychain.items.count == 1, "nothing was deleted")
        keychain.set(device: .unlocked)
        guard case .valid(let restored) = await manager.status() else {
            Issue.record("not restored once unlocked")
            return
        }
        #expect(restored.username == "Ada")
    }

    @Test func notFoundBeforeFirstUnlockIsUnavailableNotSignedOut() async throws {
        let store = store()
        let session = StoredSession(course: AddUserResponse(username: "Ada", chatterID: "chatter-id", lifetime: 3600), at: Date())
        try await store.write(JSONEncoder().encode(session), for: StoreKey.session)
        // The Keychain cannot match what it cannot decrypt yet: it answers "not found" for a session that is there.
        keychain.set(device: .beforeFirstUnlock)
        keychain.set(unreadableItemsAreMissing: true)
        #expect(keychain.copy(store.itemQuery(StoreKey.session).merging([kSecReturnData as String: true]) { $1 }).0 == errSecItemNotFound)

        let manager = SessionManager(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: store)
        let events = EventLog(await manager.events())
        guard case .storageUnavailable(.unavailable) = await manager.start() else {
            Issue.record("read as \(await manager.state)")
            return
        }
        #expect(keychain.items.count == 1, "nothing was deleted")

        keychain.set(device: .unlocked)
        guard case .valid(let restored) = await manager.retryStorage() else {
            Issue.record("not restored once unlocked")
            return
        }
        #expect(restored.username == "Ada")
        let seen = await events.waitFor(2)
        #expect(seen.count == 2)
        #expect(seen.last == .initialSession(.valid(restored)), "listeners learn the session once storage reads")
        #expect(await manager.storageProblem == nil)
    }

    @Test func missingIsNilAndDeletingMissingSucceeds() async throws {
        #expect(try await store().read("nothing") == nil)
        try await store().delete("nothing")
    }

    @Test(arguments: [
        (Int32(-25308), "unavailable"), (-25291, "unavailable"), (-34018, "misconfigured"), (-25294, "unavailable"),
        (-25293, "denied"), (-128, "denied"), (-50, "failed"), (-26275, "failed"),
    ])
    func statusesMapToTypedErrors(status: Int32, kind: String) async throws {
        keychain.set(forcedStatus: status)
        do {
            _ = try await store().read("session")
            Issue.record("status \(status) did not throw")
        } catch {
            switch error {
            case .unavailable: #expect(kind == "unavailable")
            case .denied: #expect(kind == "denied")
            case .failed: #expect(kind == "failed")
            case .misconfigured: #expect(kind == "misconfigured")
            case .protectionUnavailable: Issue.record("unexpected \(error)")
            }
        }
    }
}

/// A fresh install does not resurrect the previous install's session (Keychain items outlive the app).
@Suite struct FirstRunGuardTests {
    func defaults() -> UserDefaults {
        let name = "chatterkit.tests.\(UUID().uuidString)"
        let defaults = UserDefaults(suiteName: name)!
        defaults.removePersistentDomain(forName: name)
        return defaults
    }

    @Test func firstRunClearsWhatAnEarlierInstallLeft() async throws {
        let keychain = KeychainStandIn()
        let store = KeychainStore(service: "chatter", functions: keychain.functions)
        try await store.write(Data("old session".utf8), for: StoreKey.session)
        let defaults = defaults()

        #expect(try await FirstRunGuard.prepare(store, defaults: defaults))
        #expect(try await store.read(StoreKey.session) == nil)

        try await store.write(Data("new session".utf8), for: StoreKey.session)
        #expect(try await FirstRunGuard.prepare(store, defaults: defaults) == false)
        #expect(try await store.read(StoreKey.session) == Data("new session".utf8), "later launches keep the session")
    }

    @Test func aLaunchBeforeFirstUnlockClearsNothing() async throws {
        let keychain = KeychainStandIn()
        let store = KeychainStore(service: "chatter", functions: keychain.functions)
        try await store.write(Data("session".utf8), for: StoreKey.session)
        let installed = defaults()
        installed.set(true, forKey: FirstRunGuard.markerKey)

        // iOS prewarms the app before the first unlock since boot: UserDefaults then reads as empty.
        keychain.set(device: .beforeFirstUnlock)
        keychain.set(unreadableItemsAreMissing: true)
        do {
            try await FirstRunGuard.prepare(store, defaults: defaults())
            Issue.record("cleared before first unlock")
        } catch {
            guard case .unavailable = error else {
                Issue.record("\(error)")
                return
            }
        }
        keychain.set(device: .unlocked)
        #expect(try await store.read(StoreKey.session) == Data("session".utf8), "the session survived the prewarmed launch")
        #expect(try await FirstRunGuard.prepare(store, defaults: installed) == false)
        #expect(try await store.read(StoreKey.session) == Data("session".utf8))
    }

    @Test func anAppExtensionNeverClears() async throws {
        let store = MemoryStore([StoreKey.session: Data("app's session".utf8)])
        // An extension's own defaults never hold the app's marker.
        #expect(try await FirstRunGuard.prepare(store, defaults: defaults(), isAppExtension: true) == false)
        #expect(store.keys == [StoreKey.session])
    }

    @Test func aLockedStoreDefersTheCleanupToTheNextLaunch() async throws {
        let store = MemoryStore([StoreKey.session: Data("old".utf8)])
        store.setFailure(.unavailable("locked"))
        let defaults = defaults()
        await #expect(throws: StorageError.unavailable("locked")) { try await FirstRunGuard.prepare(store, defaults: defaults) }
        #expect(defaults.bool(forKey: FirstRunGuard.markerKey) == false)

        store.setFailure(nil)
        #expect(try await FirstRunGuard.prepare(store, defaults: defaults))
        #expect(store.keys.isEmpty)
    }
}
