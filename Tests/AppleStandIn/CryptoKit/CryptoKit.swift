@_exported import Foundation
import LocalAuthentication
import Security

// CryptoKit's P-256 signing keys, as ChatterKit's SecureEnclaveDPoPKeys uses them. Each declaration follows the page
// cited beside it; nothing here runs.

/// https://developer.apple.com/documentation/cryptokit/p256
public enum P256 {
    /// https://developer.apple.com/documentation/cryptokit/p256/signing
    public enum Signing {
        /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey
        public struct PrivateKey {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(compactrepresentable:)
            public init(compactRepresentable: Bool = true) { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(rawrepresentation:)
            public init<Bytes: ContiguousBytes>(rawRepresentation data: Bytes) throws { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/rawrepresentation
            public var rawRepresentation: Data { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/publickey
            public var publicKey: PublicKey { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/signature(for:)-8y9tv
            public func signature<D: DataProtocol>(for data: D) throws -> ECDSASignature { fatalError() }
        }

        /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
        public struct PublicKey {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/x963representation
            public var x963Representation: Data { fatalError() }
        }

        /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
        public struct ECDSASignature {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/rawrepresentation
            public var rawRepresentation: Data { fatalError() }
        }
    }
}

/// https://developer.apple.com/documentation/cryptokit/secureenclave
public enum SecureEnclave {
    /// https://developer.apple.com/documentation/cryptokit/secureenclave/isavailable
    public static var isAvailable: Bool { fatalError() }

    /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256
    public enum P256 {
        /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing
        public enum Signing {
            /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey
            public struct PrivateKey {
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(compactrepresentable:accesscontrol:authenticationcontext:)
                /// Apple's default access control is `.privateKeyUsage` when unlocked, this device only; the stand-in
                /// requires it, so a caller always says when the key may sign.
                public init(compactRepresentable: Bool = true, accessControl: SecAccessControl, authenticationContext: LAContext? = nil) throws {
                    fatalError()
                }
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(datarepresentation:authenticationcontext:)
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws { fatalError() }
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/datarepresentation
                public var dataRepresentation: Data { fatalError() }
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/publickey
                public var publicKey: CryptoKit.P256.Signing.PublicKey { fatalError() }
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/signature(for:)
                public func signature<D: DataProtocol>(for data: D) throws -> CryptoKit.P256.Signing.ECDSASignature { fatalError() }
            }
        }
    }
}
