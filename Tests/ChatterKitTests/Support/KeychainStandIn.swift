import Foundation
import Synchronization

@testable import ChatterKit

#if canImport(Security)
    import Security
#endif

/// A stand-in for the few Security calls `KeychainStore` makes, with the framework's semantics as
/// documented: items are matched by class, service, account and access group; adding a matching item
/// is errSecDuplicateItem; updating or deleting a missing one is errSecItemNotFound; kSecAttrAccessible
/// together with kSecAttrAccessControl is errSecParam; a protected item cannot be read while the device
/// is locked (errSecInteractionNotAllowed); an access-controlled read asks for user presence.
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

    struct Item: @unchecked Sendable {
        var attributes: [String: Any]
        var data: Data
    }

    struct State: @unchecked Sendable {
        var items: [Item] = []
        var device = DeviceState.unlocked
        var presence = Presence.succeeds
        var presenceChecks = 0
        var canCreateAccessControl = true
        /// Every call answers this status instead (errSecMissingEntitlement, errSecNotAvailable, ...).
        var forcedStatus: Int32?
        /// An item the device cannot decrypt now is not matched at all (errSecItemNotFound), as the Keychain
        /// answers before first unlock, when the attributes a query matches on are encrypted too.
        var unreadableItemsAreMissing = false
    }

    let state = Mutex(State())

    var items: [Item] { state.withLock { $0.items } }
    func set(device: DeviceState) { state.withLock { $0.device = device } }
    func set(presence: Presence) { state.withLock { $0.presence = presence } }
    func set(forcedStatus: Int32?) { state.withLock { $0.forcedStatus = forcedStatus } }
    func set(canCreateAccessControl: Bool) { state.withLock { $0.canCreateAccessControl = canCreateAccessControl } }
    func set(unreadableItemsAreMissing: Bool) { state.withLock { $0.unreadableItemsAreMissing = unreadableItemsAreMissing } }
    var presenceChecks: Int { state.withLock { $0.presenceChecks } }

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

    static let identity = [kSecClass as String, kSecAttrService as String, kSecAttrAccount as String, kSecAttrAccessGroup as String]

    static func string(_ value: Any?) -> String? {
        value.map { "\($0)" }
    }

    static func matches(_ item: Item, _ query: [String: Any]) -> Bool {
        identity.allSatisfy { key in query[key] == nil || string(query[key]) == string(item.attributes[key]) }
    }

    func add(_ attributes: [String: Any]) -> Int32 {
        state.withLock { s in
            if let forced = s.forcedStatus { return forced }
            guard let data = attributes[kSecValueData as String] as? Data, attributes[kSecClass as String] != nil else { return -50 }
            if attributes[kSecAttrAccessible as String] != nil, attributes[kSecAttrAccessControl as String] != nil { return -50 }
            if s.items.contains(where: { Self.matches($0, attributes) }) { return errSecDuplicateItem }
            if s.device == .beforeFirstUnlock { return errSecInteractionNotAllowed }
            var stored = attributes
            stored[kSecValueData as String] = nil
            s.items.append(Item(attributes: stored, data: data))
            return errSecSuccess
        }
    }

    func copy(_ query: [String: Any]) -> (Int32, Data?) {
        state.withLock { s in
            if let forced = s.forcedStatus { return (forced, nil) }
            guard query[kSecReturnData as String] as? Bool == true else { return (-50, nil) }
            guard let item = s.items.first(where: { Self.matches($0, query) }) else { return (errSecItemNotFound, nil) }
            if !Self.readable(item, s.device) { return (s.unreadableItemsAreMissing ? errSecItemNotFound : errSecInteractionNotAllowed, nil) }
            if item.attributes[kSecAttrAccessControl as String] != nil {
                s.presenceChecks += 1
                switch s.presence {
                case .succeeds: break
                case .cancelled: return (errSecUserCanceled, nil)
                case .fails: return (errSecAuthFailed, nil)
                }
            }
            return (errSecSuccess, item.data)
        }
    }

    func update(_ query: [String: Any], _ attributes: [String: Any]) -> Int32 {
        state.withLock { s in
            if let forced = s.forcedStatus { return forced }
            guard let index = s.items.firstIndex(where: { Self.matches($0, query) }) else { return errSecItemNotFound }
            if !Self.readable(s.items[index], s.device) { return errSecInteractionNotAllowed }
            if attributes[kSecAttrAccessible as String] != nil, attributes[kSecAttrAccessControl as String] != nil { return -50 }
            for (key, value) in attributes where key != kSecValueData as String { s.items[index].attributes[key] = value }
            // Protection is one or the other: setting one replaces the other.
            if attributes[kSecAttrAccessible as String] != nil { s.items[index].attributes[kSecAttrAccessControl as String] = nil }
            if attributes[kSecAttrAccessControl as String] != nil { s.items[index].attributes[kSecAttrAccessible as String] = nil }
            if let data = attributes[kSecValueData as String] as? Data { s.items[index].data = data }
            return errSecSuccess
        }
    }

    func delete(_ query: [String: Any]) -> Int32 {
        state.withLock { s in
            if let forced = s.forcedStatus { return forced }
            let before = s.items.count
            s.items.removeAll { Self.matches($0, query) }
            return s.items.count == before ? errSecItemNotFound : errSecSuccess
        }
    }

    /// Data protection classes: "after first unlock" items are readable once the device was unlocked
    /// once since boot; "when unlocked" (and access-controlled) items only while unlocked.
    static func readable(_ item: Item, _ device: DeviceState) -> Bool {
        let protection =
            string(item.attributes[kSecAttrAccessible as String])
            ?? (item.attributes[kSecAttrAccessControl as String] as? AccessControlObject)?.accessibility
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
