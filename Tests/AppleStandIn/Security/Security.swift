// swift-format-ignore-file: AlwaysUseLowerCamelCase
// The stand-in keeps the names of the C API it stands in for (`SecItemAdd`, `SecTrustEvaluateWithError`).
// Security, as far as the project uses it: the keychain (SecItem*) and a server's key for pinning. Foundation is
// not re-exported, as on Apple's systems; FoundationNetworking is, for URLSession.swift.

import Foundation
@_exported import FoundationNetworking

/// Stands for the value of a constant; nothing here runs.
func standIn<Value>() -> Value { fatalError() }

// MARK: - Types

/// https://developer.apple.com/documentation/security/sectrust
public final class SecTrust {}

/// https://developer.apple.com/documentation/security/seccertificate
public final class SecCertificate {}

/// https://developer.apple.com/documentation/security/seckey
public final class SecKey {}

/// https://developer.apple.com/documentation/security/secaccesscontrol
public final class SecAccessControl {}

/// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags (raw values: SecAccessControl.h)
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/init(rawvalue:)
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }
    public let rawValue: CFOptionFlags

    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/userpresence
    public static var userPresence: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 0) }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometryany
    public static var biometryAny: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 1) }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset
    public static var biometryCurrentSet: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 3) }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/devicepasscode
    public static var devicePasscode: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 4) }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/privatekeyusage
    public static var privateKeyUsage: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 30) }
}

// MARK: - Keychain items

/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }

/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError() }

/// https://developer.apple.com/documentation/security/secitemdelete(_:)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError() }

/// https://developer.apple.com/documentation/security/secaccesscontrolcreatewithflags(_:_:_:_:) — `protection` is one
/// of the kSecAttrAccessible… values.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? { fatalError() }

/// https://developer.apple.com/documentation/security/item-class-keys-and-values
public let kSecClass: CFString = standIn()
public let kSecClassGenericPassword: CFString = standIn()

/// https://developer.apple.com/documentation/security/item-attribute-keys-and-values (kSecAttrService, kSecAttrAccount,
/// kSecAttrAccessGroup, kSecAttrSynchronizable, kSecAttrAccessible, kSecAttrAccessControl, kSecAttrLabel,
/// kSecAttrGeneric, kSecAttrKeyType, kSecAttrKeySizeInBits)
public let kSecAttrService: CFString = standIn()
public let kSecAttrAccount: CFString = standIn()
public let kSecAttrAccessGroup: CFString = standIn()
public let kSecAttrSynchronizable: CFString = standIn()
public let kSecAttrAccessible: CFString = standIn()
public let kSecAttrAccessControl: CFString = standIn()
public let kSecAttrLabel: CFString = standIn()
public let kSecAttrGeneric: CFString = standIn()
public let kSecAttrKeyType: CFString = standIn()
public let kSecAttrKeySizeInBits: CFString = standIn()

/// The values of kSecAttrAccessible: https://developer.apple.com/documentation/security/item-attribute-keys-and-values#Accessibility-Values
public let kSecAttrAccessibleWhenUnlocked: CFString = standIn()
public let kSecAttrAccessibleAfterFirstUnlock: CFString = standIn()
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = standIn()
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = standIn()
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = standIn()

/// The values of kSecAttrKeyType: https://developer.apple.com/documentation/security/ksecattrkeytypersa,
/// https://developer.apple.com/documentation/security/ksecattrkeytypeecsecprimerandom
public let kSecAttrKeyTypeRSA: CFString = standIn()
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = standIn()

/// https://developer.apple.com/documentation/security/search-attribute-keys-and-values (kSecMatchLimit, kSecMatchLimitOne)
public let kSecMatchLimit: CFString = standIn()
public let kSecMatchLimitOne: CFString = standIn()

/// https://developer.apple.com/documentation/security/item-return-result-keys (kSecReturnData, kSecReturnAttributes)
/// and https://developer.apple.com/documentation/security/ksecvaluedata
public let kSecReturnData: CFString = standIn()
public let kSecReturnAttributes: CFString = standIn()
public let kSecValueData: CFString = standIn()

/// https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain
public let kSecUseDataProtectionKeychain: CFString = standIn()
/// https://developer.apple.com/documentation/security/ksecuseauthenticationcontext — its value is an LAContext.
public let kSecUseAuthenticationContext: CFString = standIn()
/// https://developer.apple.com/documentation/security/ksecuseoperationprompt — deprecated in iOS 14, macOS 11, watchOS 7,
/// tvOS 14 and visionOS 1, none later than the package's deployment targets: Xcode warns wherever it is used, and so
/// does this.
@available(*, deprecated, message: "Use kSecUseAuthenticationContext and set LAContext.localizedReason property")
public let kSecUseOperationPrompt: CFString = standIn()

/// https://developer.apple.com/documentation/security/security-framework-result-codes (values: SecBase.h)
public var errSecSuccess: OSStatus { 0 }
public var errSecParam: OSStatus { -50 }
public var errSecUserCanceled: OSStatus { -128 }
public var errSecNotAvailable: OSStatus { -25291 }
public var errSecAuthFailed: OSStatus { -25293 }
public var errSecNoSuchKeychain: OSStatus { -25294 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }
public var errSecMissingEntitlement: OSStatus { -34018 }

// MARK: - Trust, certificates and keys

/// https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { fatalError() }

/// https://developer.apple.com/documentation/security/sectrustcopycertificatechain(_:) — an array of SecCertificate,
/// the leaf first.
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError() }

/// https://developer.apple.com/documentation/security/seccertificatecopykey(_:)
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { fatalError() }

/// https://developer.apple.com/documentation/security/seckeycopyattributes(_:)
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { fatalError() }

/// https://developer.apple.com/documentation/security/seckeycopyexternalrepresentation(_:_:)
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    fatalError()
}
