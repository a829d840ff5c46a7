import Foundation

#if canImport(Security)
    import Security
#endif

/// Secrets as Keychain generic-password items: this device only, never synchronized, readable
/// after first unlock by default, optionally behind user presence or the current biometry set. The
/// Security calls come in through `KeychainFunctions`, so this code (query building and status mapping)
/// is compiled and tested on Linux against a stand-in, and runs against the real framework on Apple.
public struct KeychainStore: SecretStore {
    /// When items can be read. Every choice is a ThisDeviceOnly class: items never move to another device, not even
    /// through a backup.
    public enum Accessibility: Sendable, Equatable {
        /// From the first unlock after a restart on, so the session refreshes in the background while the device is
        /// locked. The default.
        case afterFirstUnlockThisDeviceOnly
        /// Only while the device is unlocked: a request from the background while locked throws `.unavailable`.
        case whenUnlockedThisDeviceOnly
        /// Only while unlocked, and only while a passcode is set: removing the passcode deletes the items.
        case whenPasscodeSetThisDeviceOnly

        var constant: String {
            switch self {
            case .afterFirstUnlockThisDeviceOnly: return kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String
            case .whenUnlockedThisDeviceOnly: return kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String
            case .whenPasscodeSetThisDeviceOnly: return kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String
            }
        }
    }

    /// Who must be present to read an item.
    public enum AccessControl: Sendable, Equatable {
        /// Face ID / Touch ID, falling back to the device passcode.
        case userPresence
        /// Biometry only, and only the fingers/face enrolled now: enrolling another one invalidates the item.
        case biometryCurrentSet
    }

    /// Groups this store's items (`kSecAttrService`); use something unique to the app and server, such as the
    /// bundle identifier.
    public let service: String
    /// A keychain access group shared with the app's extensions, or nil for the app's own items.
    public let accessGroup: String?
    /// When the items can be read. It is set on every write, so items written before keep their class until rewritten.
    public let accessibility: Accessibility
    /// Who must be present to read an item, or nil for no prompt. With it, reading the session may ask for Face ID.
    public let accessControl: AccessControl?
    /// The iOS-style keychain, which honours ThisDeviceOnly and access control. A command-line tool on
    /// macOS has no keychain entitlement for it and uses the login keychain instead (false).
    public let dataProtectionKeychain: Bool
    let functions: KeychainFunctions

    /// A store that makes its Security calls through `functions`: `.system` on Apple platforms, a stand-in in
    /// tests.
    public init(
        service: String, accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
        accessControl: AccessControl? = nil, dataProtectionKeychain: Bool = true, functions: KeychainFunctions
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.accessControl = accessControl
        self.dataProtectionKeychain = dataProtectionKeychain
        self.functions = functions
    }

    /// Identifies one item; also the query for delete.
    func itemQuery(_ key: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
            // Never in iCloud Keychain: a session belongs to one device.
            kSecAttrSynchronizable as String: false,
        ]
        if dataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// The protection and value attributes of a write. Fails closed: if the access control asked for
    /// cannot be created, nothing is written rather than writing an unprotected item.
    func writeAttributes(_ data: Data) throws(StorageError) -> [String: Any] {
        var attributes: [String: Any] = [kSecValueData as String: data]
        if let accessControl {
            guard let object = functions.createAccessControl(accessibility.constant, accessControl) else {
                throw .protectionUnavailable("cannot create the \(accessControl) access control on this device")
            }
            attributes[kSecAttrAccessControl as String] = object
        } else {
            attributes[kSecAttrAccessible as String] = accessibility.constant
        }
        return attributes
    }

    /// The item's data, or nil when there is none. A "not found" while protected data cannot be read throws
    /// `.unavailable` instead, so a device before its first unlock never reads as signed out.
    public func read(_ key: String) async throws(StorageError) -> Data? {
        var query = itemQuery(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        let (status, data) = functions.copyMatching(query)
        if status == errSecItemNotFound {
            // Before first unlock (iOS prewarms apps then) the Keychain cannot match an item it cannot
            // decrypt and answers "not found" for a session that is there: only trusted once it can.
            try await checkAvailable()
            return nil
        }
        guard status == errSecSuccess else { throw Self.error(status) }
        guard let data else { throw .failed("the keychain returned no data for \(key)") }
        return data
    }

    /// Adds the item, or updates it in place, so a failure never leaves no item at all. Throws
    /// `.protectionUnavailable`, writing nothing, when `accessControl` cannot be set up.
    public func write(_ data: Data, for key: String) async throws(StorageError) {
        let attributes = try writeAttributes(data)
        let query = itemQuery(key)
        var status = functions.add(query.merging(attributes) { $1 })
        // Updating in place (not delete-then-add) so a failure can never leave no item at all.
        if status == errSecDuplicateItem { status = functions.update(query, attributes) }
        guard status == errSecSuccess else { throw Self.error(status) }
    }

    /// Removes the item; a missing item is not an error.
    public func delete(_ key: String) async throws(StorageError) {
        let status = functions.delete(itemQuery(key))
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status) }
    }

    /// Throws `.unavailable` while this store's protection class cannot be read (before the first unlock
    /// since boot, or while locked for when-unlocked items), when "not found" means nothing.
    public func checkAvailable() async throws(StorageError) {
        guard functions.protectedDataAvailable(accessibility.constant) else {
            throw .unavailable("protected data is not available yet (the device has not been unlocked since it started, or is locked)")
        }
    }

    /// Separates "try again later" (locked device, no entitlement) from "the user said no".
    static func error(_ status: Int32) -> StorageError {
        switch status {
        case errSecInteractionNotAllowed: return .unavailable("the device is locked (errSecInteractionNotAllowed)")
        case errSecNotAvailable: return .unavailable("no keychain is available (errSecNotAvailable)")
        case errSecMissingEntitlement: return .unavailable("the app lacks the keychain entitlement (errSecMissingEntitlement)")
        case errSecNoSuchKeychain: return .unavailable("the keychain does not exist (errSecNoSuchKeychain)")
        case errSecAuthFailed: return .denied("authentication failed (errSecAuthFailed)")
        case errSecUserCanceled: return .denied("the user cancelled (errSecUserCanceled)")
        default: return .failed("OSStatus \(status)")
        }
    }
}

/// The Security calls `KeychainStore` makes. On Apple platforms `.system` calls the framework; tests on
/// Linux pass a stand-in with the same semantics.
public struct KeychainFunctions: Sendable {
    /// `SecItemAdd` with these attributes; returns its OSStatus.
    public var add: @Sendable (_ attributes: [String: Any]) -> Int32
    /// `SecItemCopyMatching` for one item: its OSStatus and the item's data, if any.
    public var copyMatching: @Sendable (_ query: [String: Any]) -> (Int32, Data?)
    /// `SecItemUpdate` of the items `query` matches; returns its OSStatus.
    public var update: @Sendable (_ query: [String: Any], _ attributes: [String: Any]) -> Int32
    /// `SecItemDelete` of the items `query` matches; returns its OSStatus.
    public var delete: @Sendable (_ query: [String: Any]) -> Int32
    /// A `SecAccessControl` for the accessibility constant and flag, or nil when it cannot be created.
    public var createAccessControl: @Sendable (_ accessibility: String, _ control: KeychainStore.AccessControl) -> AnyObject?
    /// Whether items of this accessibility class can be read now (data protection has their key).
    public var protectedDataAvailable: @Sendable (_ accessibility: String) -> Bool

    /// A set of functions, for a test stand-in; apps use `.system`.
    public init(
        add: @escaping @Sendable ([String: Any]) -> Int32,
        copyMatching: @escaping @Sendable ([String: Any]) -> (Int32, Data?),
        update: @escaping @Sendable ([String: Any], [String: Any]) -> Int32,
        delete: @escaping @Sendable ([String: Any]) -> Int32,
        createAccessControl: @escaping @Sendable (String, KeychainStore.AccessControl) -> AnyObject?,
        protectedDataAvailable: @escaping @Sendable (String) -> Bool
    ) {
        self.add = add
        self.copyMatching = copyMatching
        self.update = update
        self.delete = delete
        self.createAccessControl = createAccessControl
        self.protectedDataAvailable = protectedDataAvailable
    }
}
