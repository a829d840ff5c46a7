import ChatterCore
import Crypto
import Foundation

/// The key secrets are sealed under (`SecretBox`: authenticator secrets, recovery codes' keyed hashes,
/// Apple's refresh tokens), checked at start against the fingerprint the database keeps beside them. A lost
/// key file made anew without a word would lock out every user with an authenticator app and leave Apple
/// tokens waiting for revocation unrevocable; a swapped one, the same. So chatterd makes a key only for a
/// database that holds nothing sealed, and otherwise starts only with the key it recorded.
public enum SealingKeyCheck {
    /// Names the key without revealing anything of it: an HMAC of a fixed label under the key, 128 bits.
    package static func fingerprint(of key: [UInt8]) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array("chatterd sealing key fingerprint".utf8), using: SymmetricKey(data: key))
        return Hex.encode(Array(code.prefix(16)))
    }

    /// The key in `path`, made there first when `create` allows it and the store holds nothing sealed, and
    /// recorded in the store (in one step, so instances starting at once agree); refused with what to do when
    /// the store's secrets were sealed under another key or the file is gone.
    public static func key(at path: String, create: Bool, store: any SealingKeyRepository, now: Date) async throws -> [UInt8] {
        let recorded = try await store.sealingKeyFingerprint()
        if !FileManager.default.fileExists(atPath: path) {
            if let recorded {
                throw ConfigurationError(
                    "the database holds secrets sealed under the second-factor key \(recorded) (authenticator apps, recovery codes, Apple tokens), "
                        + "and there is no key file at \(path): restore it from the backup it was saved with (or name it with "
                        + "--second-factor-key). A new key would lock out every user with an authenticator app, so chatterd makes none.")
            }
            if try await store.holdsSealedData() {
                throw ConfigurationError(
                    "the database holds sealed secrets (authenticator apps, recovery codes, Apple tokens) and there is no key file at "
                        + "\(path): restore the key they were sealed under (or name it with --second-factor-key). A new key would lock "
                        + "out every user with an authenticator app, so chatterd makes none.")
            }
        }
        let key = try SecondFactorKey.ensure(at: path, create: create)
        let fingerprint = fingerprint(of: key)
        let kept = try await store.recordSealingKey(fingerprint: fingerprint, at: now)
        guard kept == fingerprint else {
            throw ConfigurationError(
                "the second-factor key at \(path) (fingerprint \(fingerprint)) is not the key the database's secrets are sealed under "
                    + "(\(kept)): restore that key file, or name it with --second-factor-key")
        }
        return key
    }
}
