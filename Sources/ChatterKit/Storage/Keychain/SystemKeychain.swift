#if canImport(Security)
    import Foundation
    import Security

    extension KeychainFunctions {
        /// The real Security framework.
        public static let system = KeychainFunctions(
            add: { SecItemAdd($0 as CFDictionary, nil) },
            copyMatching: { query in
                var result: CFTypeRef?
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                return (status, result as? Data)
            },
            update: { SecItemUpdate($0 as CFDictionary, $1 as CFDictionary) },
            delete: { SecItemDelete($0 as CFDictionary) },
            createAccessControl: { accessibility, control in
                let flags: SecAccessControlCreateFlags = control == .userPresence ? .userPresence : .biometryCurrentSet
                var error: Unmanaged<CFError>?
                let object = SecAccessControlCreateWithFlags(nil, accessibility as CFString, flags, &error)
                error?.release()
                return object
            },
            protectedDataAvailable: { ProtectedDataProbe.isAvailable(for: $0) })
    }

    extension KeychainStore {
        /// A Keychain store on this Apple device.
        /// `authenticationContext` hands out the `LAContext` reads of the session use: pass
        /// `{ authenticator.context }` of the `LocalAuthenticator` that unlocks the app, so one prompt does both.
        public init(
            service: String, accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
            accessControl: AccessControl? = nil, protectedKeys: Set<String> = [StoreKey.session], dataProtectionKeychain: Bool = true,
            authenticationContext: (@Sendable () -> AnyObject?)? = nil
        ) {
            self.init(
                service: service, accessGroup: accessGroup, accessibility: accessibility, accessControl: accessControl,
                protectedKeys: protectedKeys, dataProtectionKeychain: dataProtectionKeychain, authenticationContext: authenticationContext,
                functions: .system)
        }
    }
#endif
