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
    /// When the items can be read. An item written before with another class is replaced at its next write.
    public let accessibility: Accessibility
    /// Who must be present to read the items in `protectedKeys`, or nil for no prompt. The other items (the
    /// remembered email, device tokens, a pending Apple registration) never carry it: asking for an email code
    /// must not ask for Face ID.
    public let accessControl: AccessControl?
    /// The keys `accessControl` applies to: the session alone, by default.
    public let protectedKeys: Set<String>
    /// The iOS-style keychain, which honours ThisDeviceOnly and access control. A command-line tool on
    /// macOS has no keychain entitlement for it and uses the login keychain instead (false).
    public let dataProtectionKeychain: Bool
    /// The LocalAuthentication context a read of a protected item uses (`kSecUseAuthenticationContext`): the one
    /// the app's lock evaluated, so one Face ID unlocks the app and its session. Nil: the system asks per read.
    public let authenticationContext: (@Sendable () -> AnyObject?)?
    let functions: KeychainFunctions

    /// A store that makes its Security calls through `functions`: `.system` on Apple platforms, a stand-in in
    /// tests.
    public init(
        service: String, accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
        accessControl: AccessControl? = nil, protectedKeys: Set<String> = [StoreKey.session], dataProtectionKeychain: Bool = true,
        authenticationContext: (@Sendable () -> AnyObject?)? = nil, functions: KeychainFunctions
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.accessControl = accessControl
        self.protectedKeys = protectedKeys
        self.dataProtectionKeychain = dataProtectionKeychain
        self.authenticationContext = authenticationContext
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

    /// The access control `key` gets, if any.
    func control(for key: String) -> AccessControl? {
        protectedKeys.contains(key) ? accessControl : nil
    }

    /// The protection an item of `key` is written with, in words kept in its label (`kSecAttrLabel`), so a write
    /// can tell an item of the same protection (its data is updated) from one of another (it is replaced).
    func protectionLabel(for key: String) -> String {
        let control = control(for: key).map { $0 == .userPresence ? "+presence" : "+biometry-current-set" } ?? ""
        return "ChatterKit " + accessibility.constant + control
    }

    /// The attributes of a new item: protection, label and value. Fails closed: if the access control asked for
    /// cannot be created, nothing is written rather than writing an unprotected item.
    func addAttributes(_ data: Data, for key: String) throws(StorageError) -> [String: Any] {
        var attributes: [String: Any] = [kSecValueData as String: data, kSecAttrLabel as String: protectionLabel(for: key)]
        if let accessControl = control(for: key) {
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
        if control(for: key) != nil, let context = authenticationContext?() {
            query[kSecUseAuthenticationContext as String] = context
        }
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

    /// Stores `data` under `key`. An unprotected item of the same protection has its data updated in place (an
    /// update carries only the data: it is not how protection is changed); any other item is deleted and added
    /// again: one of another protection, and a protected one, whose update would need Face ID (in the
    /// background it cannot be asked for) and which a biometry change may have invalidated for good. Throws
    /// `.protectionUnavailable`, writing nothing, when `accessControl` cannot be set up.
    public func write(_ data: Data, for key: String) async throws(StorageError) {
        let attributes = try addAttributes(data, for: key)
        let query = itemQuery(key)
        var status = functions.add(query.merging(attributes) { $1 })
        guard status == errSecDuplicateItem else {
            guard status == errSecSuccess else { throw Self.error(status) }
            return
        }
        if control(for: key) == nil {
            var sameProtection = query
            sameProtection[kSecAttrLabel as String] = protectionLabel(for: key)
            status = functions.update(sameProtection, [kSecValueData as String: data])
            if status == errSecSuccess { return }
            guard status == errSecItemNotFound else { throw Self.error(status) }
        }
        // Replaced. Losing the old value if the add then fails is what a caller wants here: the session written
        // is the newest, and an older one (its refresh token retired) must never be presented again.
        status = functions.delete(query)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status) }
        status = functions.add(query.merging(attributes) { $1 })
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

    /// Separates "try again later" (locked device) from "the user said no" and from "this build cannot use
    /// the keychain at all" (no entitlement: waiting never helps).
    static func error(_ status: Int32) -> StorageError {
        switch status {
        case errSecInteractionNotAllowed: return .unavailable("the device is locked (errSecInteractionNotAllowed)")
        case errSecNotAvailable: return .unavailable("no keychain is available (errSecNotAvailable)")
        case errSecMissingEntitlement:
            return .misconfigured(
                "the app has no keychain entitlement for these items (errSecMissingEntitlement): sign it with a provisioning profile, check the access group, or use the login keychain (dataProtectionKeychain: false) in a command-line tool"
            )
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
