#if canImport(CryptoKit) && canImport(Security)
    import CryptoKit
    import Foundation
    import Security

    /// The device's DPoP keys: in the Secure Enclave where the device has one (its private key never leaves it; what is
    /// stored is a handle only this enclave can use), else a software P-256 key, which the `KeychainStore` keeps
    /// ThisDeviceOnly. `Chatter`'s default. The proofs themselves are made and tested in `DPoPProofs`; this file only
    /// holds the key.
    public struct SecureEnclaveDPoPKeys: DPoPKeyFactory {
        /// Software keys even where there is an enclave (a test, or an app that wants to).
        public let preferSoftware: Bool

        /// Keys in the Secure Enclave where there is one, unless `preferSoftware`.
        public init(preferSoftware: Bool = false) {
            self.preferSoftware = preferSoftware
        }

        /// The form's first byte says which kind of key the rest restores.
        enum Kind: UInt8 {
            case enclave = 1
            case software = 2
        }

        /// A new key in the Secure Enclave (a software key where there is none, or with `preferSoftware`), and its
        /// stored form.
        public func make() throws -> (key: any DPoPKey, stored: Data) {
            // https://developer.apple.com/documentation/cryptokit/secureenclave/isavailable
            if !preferSoftware, SecureEnclave.isAvailable {
                // After the first unlock, as the session's keychain item: a refresh in the background (a widget, a
                // notification extension) signs while the device is locked. `.privateKeyUsage` is what lets the key sign
                // (https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/privatekeyusage).
                // An enclave that cannot make the key (a build without keychain access) leaves a software key, not a
                // device that cannot sign in.
                if let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, .privateKeyUsage, nil),
                    let key = try? SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
                {
                    return (EnclaveKey(key: key), Data([Kind.enclave.rawValue]) + key.dataRepresentation)
                }
            }
            let key = P256.Signing.PrivateKey()
            return (SoftwareKey(key: key), Data([Kind.software.rawValue]) + key.rawRepresentation)
        }

        /// The key `make` stored; throws for a form it did not write, or an enclave handle this device cannot use.
        public func restore(_ stored: Data) throws -> any DPoPKey {
            switch stored.first.flatMap(Kind.init(rawValue:)) {
            case .enclave:
                // https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(datarepresentation:authenticationcontext:)
                return EnclaveKey(key: try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: stored.dropFirst()))
            case .software:
                return SoftwareKey(key: try P256.Signing.PrivateKey(rawRepresentation: stored.dropFirst()))
            case nil:
                throw CocoaError(.coderReadCorrupt)
            }
        }

        struct EnclaveKey: DPoPKey, @unchecked Sendable {
            // Immutable; CryptoKit's key types are not marked Sendable.
            let key: SecureEnclave.P256.Signing.PrivateKey
            var publicKey: Data { key.publicKey.x963Representation }
            func signature(for message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
        }

        struct SoftwareKey: DPoPKey, @unchecked Sendable {
            let key: P256.Signing.PrivateKey
            var publicKey: Data { key.publicKey.x963Representation }
            func signature(for message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
        }
    }
#endif
