import Foundation

/// A P-256 key that proves a request comes from the device holding the session (DPoP, RFC 9449). chatterd binds a
/// session started with a proof to the key's thumbprint; its tokens then work only with a fresh proof by the key, so
/// a token copied off the device (a backup, a log, a proxy) is worthless elsewhere.
public protocol DPoPKey: Sendable {
    /// The public key in ANSI X9.63 form, `0x04 ‖ x ‖ y` (65 bytes): CryptoKit's `x963Representation`.
    var publicKey: Data { get }
    /// An ES256 signature of `message` as JWS writes it: `r ‖ s`, 32 bytes each (CryptoKit's `rawRepresentation`).
    func signature(for message: Data) throws -> Data
}

/// Makes and restores one kind of `DPoPKey`: `SecureEnclaveDPoPKeys` on Apple platforms, a software key in the
/// `chatter` tool and in tests. `DPoPProofs` keeps what `make` returns as `stored` in the app's `SecretStore` (a
/// `KeychainStore` writes it ThisDeviceOnly, shared with the app's extensions through its access group) and hands it
/// to `restore` at the next launch.
public protocol DPoPKeyFactory: Sendable {
    /// A new key, and the bytes that restore it: a Secure Enclave key's handle (only this device's enclave can use
    /// it), or a software key's private bytes.
    func make() throws -> (key: any DPoPKey, stored: Data)
    /// The key `stored` came from; throws when it cannot be restored (then a new key is made, and sessions bound to
    /// the old one end at their next refresh).
    func restore(_ stored: Data) throws -> any DPoPKey
}
