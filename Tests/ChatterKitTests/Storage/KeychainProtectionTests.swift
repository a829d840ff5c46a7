import Foundation
import Testing

@testable import ChatterKit

/// What a device does to the Keychain that the simulator hides (issue findings 1, 2, 4 and 7), against the
/// stand-in's model of Apple's documented behaviour.
@Suite struct KeychainProtectionTests {
    let keychain = KeychainStandIn()

    func store(
        _ accessControl: KeychainStore.AccessControl? = nil, accessibility: KeychainStore.Accessibility = .afterFirstUnlockThisDeviceOnly,
        group: String? = "TEAM.shared", context: KeychainStandIn.AuthenticationContext? = nil
    ) -> KeychainStore {
        var provider: (@Sendable () -> AnyObject?)?
        if let context { provider = { context } }
        return KeychainStore(
            service: "com.example.chatter", accessGroup: group, accessibility: accessibility, accessControl: accessControl,
            authenticationContext: provider, functions: keychain.functions)
    }

    func item(_ key: String) -> KeychainStandIn.Item? {
        keychain.items.first { $0.attributes[kSecAttrAccount as String] as? String == key }
    }

    @Test(arguments: [KeychainStore.AccessControl.userPresence, .biometryCurrentSet])
    func rewritingAFaceIDSessionInTheBackgroundAsksForNothing(control: KeychainStore.AccessControl) async throws {
        let store = store(control)
        try await store.write(Data("first".utf8), for: StoreKey.session)
        // The app refreshes from the background, where no prompt can be shown.
        keychain.set(interactive: false)
        for round in 0..<3 { try await store.write(Data("rotated \(round)".utf8), for: StoreKey.session) }
        #expect(keychain.presenceChecks == 0, "a refresh never asks for Face ID")
        #expect(keychain.items.count == 1)
        let session = try #require(item(StoreKey.session))
        #expect(session.data == Data("rotated 2".utf8))
        #expect(session.control?.control == control, "the rewritten item keeps its protection")
        #expect(session.attributes[kSecAttrAccessible as String] == nil)
    }

    @Test func anUnprotectedItemIsUpdatedWithItsDataAlone() async throws {
        let store = store()
        try await store.write(Data("one".utf8), for: StoreKey.session)
        try await store.write(Data("two".utf8), for: StoreKey.session)
        #expect(keychain.calls == ["add", "add", "update"], "updated in place, never deleted first")
        #expect(try await store.read(StoreKey.session) == Data("two".utf8))
    }

    @Test func anotherProtectionReplacesTheItem() async throws {
        try await store(accessibility: .afterFirstUnlockThisDeviceOnly).write(Data("old".utf8), for: StoreKey.session)
        try await store(accessibility: .whenPasscodeSetThisDeviceOnly).write(Data("new".utf8), for: StoreKey.session)
        let session = try #require(item(StoreKey.session))
        #expect(session.attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)
        #expect(session.data == Data("new".utf8))
        #expect(keychain.items.count == 1)

        // An item an earlier version wrote with Face ID on every key loses it at its next write.
        let everyKey = KeychainStore(
            service: "com.example.chatter", accessGroup: "TEAM.shared", accessControl: .userPresence,
            protectedKeys: [StoreKey.session, StoreKey.email], functions: keychain.functions)
        try await everyKey.write(Data("e".utf8), for: StoreKey.email)
        #expect(item(StoreKey.email)?.control != nil)
        keychain.set(interactive: false)
        try await store(.userPresence).write(Data("e2".utf8), for: StoreKey.email)
        #expect(item(StoreKey.email)?.control == nil)
        #expect(item(StoreKey.email)?.data == Data("e2".utf8))
    }

    @Test func aBiometryChangeNeverStopsTheSessionBeingRewritten() async throws {
        let store = store(.biometryCurrentSet)
        try await store.write(Data("before".utf8), for: StoreKey.session)
        keychain.enrolBiometryAgain()
        // Invalidated: no one can read it any more…
        await #expect(throws: StorageError.denied("authentication failed (errSecAuthFailed)")) { try await store.read(StoreKey.session) }
        // …but the next rotation still lands, under the new enrolment.
        try await store.write(Data("after".utf8), for: StoreKey.session)
        #expect(try await store.read(StoreKey.session) == Data("after".utf8))
    }

    @Test func onlyTheSessionAsksForFaceID() async throws {
        let store = store(.userPresence)
        for key in [StoreKey.session, StoreKey.email, StoreKey.device("ada@example.com"), StoreKey.pendingAppleRegistration] {
            try await store.write(Data(key.utf8), for: key)
        }
        #expect(keychain.items.filter { $0.control != nil }.count == 1)
        #expect(item(StoreKey.session)?.control?.control == .userPresence)
        // Asking for an email code reads the remembered email and the device token: no prompt.
        #expect(try await store.read(StoreKey.email) == Data(StoreKey.email.utf8))
        #expect(try await store.read(StoreKey.device("ada@example.com")) != nil)
        #expect(keychain.presenceChecks == 0)
        #expect(try await store.read(StoreKey.session) == Data(StoreKey.session.utf8))
        #expect(keychain.presenceChecks == 1)
    }

    @Test func theLockScreensContextUnlocksTheSessionWithoutASecondPrompt() async throws {
        let context = KeychainStandIn.AuthenticationContext()
        let store = store(.userPresence, context: context)
        try await store.write(Data("s".utf8), for: StoreKey.session)
        // The app's lock asks once with its context...
        #expect(keychain.evaluate(context) == errSecSuccess)
        // ...and the Keychain read that follows, given the same context, does not ask again.
        #expect(try await store.read(StoreKey.session) == Data("s".utf8))
        #expect(try await store.read(StoreKey.session) == Data("s".utf8))
        #expect(keychain.presenceChecks == 1)

        // Without it, every read asks.
        let separate = self.store(.userPresence)
        _ = try await separate.read(StoreKey.session)
        #expect(keychain.presenceChecks == 2)
    }

    @Test func withoutTheEntitlementStorageIsMisconfiguredNotLocked() async throws {
        keychain.set(entitled: false)
        do {
            _ = try await store().read(StoreKey.session)
            Issue.record("read without an entitlement")
        } catch {
            guard case .misconfigured(let text) = error else {
                Issue.record("\(error) would have said 'try again later' forever")
                return
            }
            #expect(text.contains("errSecMissingEntitlement"))
        }

        let manager = SessionManager(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: store())
        let state = await manager.start()
        guard case .storageUnavailable(.misconfigured) = state else {
            Issue.record("launch state \(state)")
            return
        }
        let auth = await AuthState(sessions: manager)
        await auth.apply(.initialSession(state))
        let notice = try #require(await auth.notice)
        #expect(notice.contains("not set up"), "the developer is told, not the user asked to unlock: \(notice)")
    }

    @Test func anAccessGroupIsSharedOnlyWithinTheEntitlement() async throws {
        // The app and its widget name the shared group: each sees what the other stored.
        try await store(group: "TEAM.shared").write(Data("app".utf8), for: StoreKey.session)
        #expect(try await store(group: "TEAM.shared").read(StoreKey.session) == Data("app".utf8))
        // A store naming no group searches every group of the entitlement.
        #expect(try await store(group: nil).read(StoreKey.session) == Data("app".utf8))
        // A group the entitlement does not list is a configuration mistake.
        await #expect(throws: StorageError.self) { try await store(group: "OTHER.group").write(Data("x".utf8), for: StoreKey.session) }
        do {
            _ = try await store(group: "OTHER.group").read(StoreKey.session)
            Issue.record("read another access group's item")
        } catch {
            guard case .misconfigured = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func theStandInRefusesProtectionChangesAndUnauthenticatedUpdates() async throws {
        // The stand-in itself: an update that tries to change protection is refused, as ChatterKit must never rely on.
        try await store().write(Data("s".utf8), for: StoreKey.session)
        let query = store().itemQuery(StoreKey.session)
        #expect(keychain.update(query, [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String]) == errSecParam)
        #expect(keychain.update(query, [kSecAttrAccessControl as String: KeychainStandIn.AccessControlObject("cku", .userPresence)]) == errSecParam)
        // A protected item needs authentication to be updated, and none can be asked for in the background.
        try await store(.userPresence).write(Data("p".utf8), for: StoreKey.session)
        keychain.set(interactive: false)
        #expect(keychain.update(query, [kSecValueData as String: Data("q".utf8)]) == errSecInteractionNotAllowed)
        keychain.set(interactive: true)
        #expect(keychain.update(query, [kSecValueData as String: Data("q".utf8)]) == errSecSuccess)
        #expect(keychain.presenceChecks == 1)
    }
}
