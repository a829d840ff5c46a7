import Foundation
import Synchronization

@testable import ChatterKit

#if canImport(Security)
    import Security
#endif

/// A stand-in for the Security calls `KeychainStore` makes, with the framework's semantics as Apple
/// documents them, so the store's code meets here what it meets on a device:
///
/// - Items are matched by class, service, account, access group and label; adding a matching item is
///   errSecDuplicateItem; updating a missing one is errSecItemNotFound; deleting a missing one too.
///   (SecItemAdd, SecItemUpdate, SecItemDelete: developer.apple.com/documentation/security/secitemadd(_:_:) and
///   siblings.)
/// - kSecAttrAccessible together with kSecAttrAccessControl is errSecParam: "This attribute is mutually
///   exclusive with…" (developer.apple.com/documentation/security/ksecattraccesscontrol).
/// - An update carries attributes to change, not protection: one that tries to set kSecAttrAccessible or
///   kSecAttrAccessControl is refused (errSecParam), so code never relies on changing protection in place.
/// - Using an access-controlled item (reading its data, updating it) needs authentication: with a
///   kSecUseAuthenticationContext that was evaluated, none is asked; with one not yet evaluated, or none,
///   the system asks, and a successful answer makes the context reusable; where no UI can be shown (the app
///   in the background, a context with interactionNotAllowed) it is errSecInteractionNotAllowed
///   (developer.apple.com/documentation/security/ksecuseauthenticationcontext,
///   developer.apple.com/documentation/localauthentication/lacontext/interactionnotallowed). Deleting needs
///   none.
/// - A .biometryCurrentSet item is invalidated when biometry is enrolled again; it can then only be deleted
///   (developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset).
/// - Data protection: an item of an after-first-unlock class is readable once the device was unlocked since
///   boot; a when-unlocked class (and access-controlled items) only while unlocked; otherwise
///   errSecInteractionNotAllowed (developer.apple.com/documentation/security/restricting-keychain-item-accessibility).
/// - An app without a keychain entitlement gets errSecMissingEntitlement for every call; an access group
///   the app's entitlement does not list too; without kSecAttrAccessGroup an add goes to the first group and a
///   query searches all of them (developer.apple.com/documentation/security/sharing-access-to-keychain-items-among-a-collection-of-apps).
final class KeychainStandIn: Sendable {
    enum DeviceState: Sendable {
        case beforeFirstUnlock
        case locked
        case unlocked
    }

    enum Presence: Sendable {
        case succeeds
        case cancelled
        case fails
    }

    final class AccessControlObject: Sendable {
        let accessibility: String
        let control: KeychainStore.AccessControl
        init(_ accessibility: String, _ control: KeychainStore.AccessControl) {
            self.accessibility = accessibility
            self.control = control
        }
    }

    /// An LAContext: evaluated once the user answered a prompt made with it.
    final class AuthenticationContext: Sendable {
        let state = Mutex((evaluated: false, interactionNotAllowed: false))
        var evaluated: Bool { state.withLock { $0.evaluated } }
        init(interactionNotAllowed: Bool = false) { state.withLock { $0.interactionNotAllowed = interactionNotAllowed } }
        func invalidate() { state.withLock { $0.evaluated = false } }
    }

    struct Item: @unchecked Sendable {
        var attributes: [String: Any]
        var data: Data
        var invalidated = false
        var control: AccessControlObject? { attributes[kSecAttrAccessControl as String] as? AccessControlObject }
    }

    struct State: @unchecked Sendable {
        var items: [Item] = []
        var device = DeviceState.unlocked
        var presence = Presence.succeeds
        var presenceChecks = 0
        /// The app is in the foreground and can show a prompt.
        var interactive = true
        var canCreateAccessControl = true
        /// The app is signed with a keychain entitlement.
        var entitled = true
        /// The access groups the entitlement lists; the first is the default.
        var accessGroups = ["TEAM.com.example.chatter", "TEAM.shared"]
        /// Every call answers this status instead (errSecNotAvailable, ...).
        var forcedStatus: Int32?
        /// An item the device cannot decrypt now is not matched at all (errSecItemNotFound), as the Keychain
        /// answers before first unlock, when the attributes a query matches on are encrypted too.
        var unreadableItemsAreMissing = false
        var calls: [String] = []
    }

    let state = Mutex(State())

    var items: [Item] { state.withLock { $0.items } }
    func set(device: DeviceState) { state.withLock { $0.device = device } }
    func set(presence: Presence) { state.withLock { $0.presence = presence } }
    func set(interactive: Bool) { state.withLock { $0.interactive = interactive } }
    func set(entitled: Bool) { state.withLock { $0.entitled = entitled } }
    func set(forcedStatus: Int32?) { state.withLock { $0.forcedStatus = forcedStatus } }
    func set(canCreateAccessControl: Bool) { state.withLock { $0.canCreateAccessControl = canCreateAccessControl } }
    func set(unreadableItemsAreMissing: Bool) { state.withLock { $0.unreadableItemsAreMissing = unreadableItemsAreMissing } }
    var presenceChecks: Int { state.withLock { $0.presenceChecks } }
    /// The Security calls made, in order ("add", "copy", "update", "delete").
    var calls: [String] { state.withLock { $0.calls } }

    /// The user enrolled another face or finger: .biometryCurrentSet items are invalid from now on.
    func enrolBiometryAgain() {
        state.withLock { s in
            for index in s.items.indices where s.items[index].control?.control == .biometryCurrentSet { s.items[index].invalidated = true }
        }
    }

    /// What LAContext.evaluatePolicy does with `context`: asks the user, and on success the context is reusable.
    func evaluate(_ context: AuthenticationContext) -> Int32 {
        state.withLock { s in Self.authenticate(&s, context) }
    }

    var functions: KeychainFunctions {
        KeychainFunctions(
            add: { self.add($0) }, copyMatching: { self.copy($0) }, update: { self.update($0, $1) }, delete: { self.delete($0) },
            createAccessControl: { accessibility, control in
                self.state.withLock { $0.canCreateAccessControl } ? AccessControlObject(accessibility, control) : nil
            },
            protectedDataAvailable: { accessibility in
                Self.readable(protection: accessibility, self.state.withLock { $0.device })
            })
    }

    static let identity = [
        kSecClass as String, kSecAttrService as String, kSecAttrAccount as String, kSecAttrAccessGroup as String, kSecAttrLabel as String,
    ]

    static func string(_ value: Any?) -> String? {
        value.map { "\($0)" }
    }

    static func matches(_ item: Item, _ query: [String: Any]) -> Bool {
        identity.allSatisfy { key in query[key] == nil || string(query[key]) == string(item.attributes[key]) }
    }

    /// The status every call answers before looking at items, if any.
    static func precondition(_ s: State, _ query: [String: Any]) -> Int32? {
        if let forced = s.forcedStatus { return forced }
        if !s.entitled { return errSecMissingEntitlement }
        if let group = string(query[kSecAttrAccessGroup as String]), !s.accessGroups.contains(group) { return errSecMissingEntitlement }
        return nil
    }

    /// Asks for user presence as the system would for `context` (or a one-off context when nil).
    static func authenticate(_ s: inout State, _ context: AuthenticationContext?) -> Int32 {
        if let context, context.evaluated { return errSecSuccess }
        if !s.interactive || context?.state.withLock({ $0.interactionNotAllowed }) == true { return errSecInteractionNotAllowed }
        s.presenceChecks += 1
        switch s.presence {
        case .succeeds:
            context?.state.withLock { $0.evaluated = true }
            return errSecSuccess
        case .cancelled: return errSecUserCanceled
        case .fails: return errSecAuthFailed
        }
    }

    /// What using (reading or updating) `item` needs beyond matching it.
    static func use(_ item: Item, _ s: inout State, _ query: [String: Any]) -> Int32 {
        if !readable(item, s.device) { return s.unreadableItemsAreMissing ? errSecItemNotFound : errSecInteractionNotAllowed }
        guard item.control != nil else { return errSecSuccess }
        if item.invalidated { return errSecAuthFailed }
        return authenticate(&s, query[kSecUseAuthenticationContext as String] as? AuthenticationContext)
    }

    func add(_ attributes: [String: Any]) -> Int32 {
        state.withLock { s in
            s.calls.append("add")
            if let status = Self.precondition(s, attributes) { return status }
            guard let data = attributes[kSecValueData as String] as? Data, attributes[kSecClass as String] != nil else { return errSecParam }
            if attributes[kSecAttrAccessible as String] != nil, attributes[kSecAttrAccessControl as String] != nil { return errSecParam }
            var stored = attributes
            stored[kSecValueData as String] = nil
            stored[kSecUseAuthenticationContext as String] = nil
            if stored[kSecAttrAccessGroup as String] == nil { stored[kSecAttrAccessGroup as String] = s.accessGroups[0] }
            var identity = stored
            identity[kSecAttrLabel as String] = nil
            if s.items.contains(where: { Self.matches($0, identity) }) { return errSecDuplicateItem }
            if s.device == .beforeFirstUnlock { return errSecInteractionNotAllowed }
            s.items.append(Item(attributes: stored, data: data))
            return errSecSuccess
        }
    }

    func copy(_ query: [String: Any]) -> (Int32, Data?) {
        state.withLock { s in
            s.calls.append("copy")
            if let status = Self.precondition(s, query) { return (status, nil) }
            guard query[kSecReturnData as String] as? Bool == true else { return (errSecParam, nil) }
            guard let item = s.items.first(where: { Self.matches($0, query) }) else { return (errSecItemNotFound, nil) }
            let status = Self.use(item, &s, query)
            return status == errSecSuccess ? (errSecSuccess, item.data) : (status, nil)
        }
    }

    func update(_ query: [String: Any], _ attributes: [String: Any]) -> Int32 {
        state.withLock { s in
            s.calls.append("update")
            if let status = Self.precondition(s, query) { return status }
            if attributes[kSecAttrAccessible as String] != nil || attributes[kSecAttrAccessControl as String] != nil { return errSecParam }
            guard let index = s.items.firstIndex(where: { Self.matches($0, query) }) else { return errSecItemNotFound }
            let status = Self.use(s.items[index], &s, query)
            guard status == errSecSuccess else { return status }
            for (key, value) in attributes where key != kSecValueData as String { s.items[index].attributes[key] = value }
            if let data = attributes[kSecValueData as String] as? Data { s.items[index].data = data }
            return errSecSuccess
        }
    }

    func delete(_ query: [String: Any]) -> Int32 {
        state.withLock { s in
            s.calls.append("delete")
            if let status = Self.precondition(s, query) { return status }
            let before = s.items.count
            s.items.removeAll { Self.matches($0, query) }
            return s.items.count == before ? errSecItemNotFound : errSecSuccess
        }
    }

    /// Data protection classes: "after first unlock" items are readable once the device was unlocked
    /// once since boot; "when unlocked" (and access-controlled) items only while unlocked.
    static func readable(_ item: Item, _ device: DeviceState) -> Bool {
        let protection = string(item.attributes[kSecAttrAccessible as String]) ?? item.control?.accessibility
        return readable(protection: protection, device)
    }

    static func readable(protection: String?, _ device: DeviceState) -> Bool {
        switch device {
        case .unlocked: return true
        case .beforeFirstUnlock: return false
        case .locked: return protection == string(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)
        }
    }
}
