import ChatterKit
import Crypto
import Foundation

/// The terminal client's DPoP key: a P-256 key in software, kept with the session in the same store (the keyring, or
/// a 0600 file beside it). A terminal has no Secure Enclave to ask; a token copied off this machine (a log, a
/// dotfile sync of the session alone) is still worthless without the key.
struct SoftwareDPoPKeys: DPoPKeyFactory {
    func make() throws -> (key: any DPoPKey, stored: Data) {
        let key = P256.Signing.PrivateKey()
        return (Key(key: key), key.rawRepresentation)
    }

    func restore(_ stored: Data) throws -> any DPoPKey {
        Key(key: try P256.Signing.PrivateKey(rawRepresentation: stored))
    }

    struct Key: DPoPKey {
        let key: P256.Signing.PrivateKey
        var publicKey: Data { key.publicKey.x963Representation }
        func signature(for message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
    }
}
