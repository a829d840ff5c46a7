import ChatterCore
import Crypto
import Foundation

/// Seals authenticator secrets (and Apple's refresh tokens) for the database under a key kept outside it (`--second-factor-key`), so
/// a copy of the database alone (a backup, a read-only SQL injection) yields no secret. AES-256-GCM; the
/// account's id is the additional data, so a sealed secret moved to another account's row does not open.
/// The same key, through HKDF, keys the recovery codes' HMAC, so their hashes cannot be searched offline
/// without it either.
package struct SecretBox: Sendable {
    private let sealing: SymmetricKey
    private let recoveryKey: SymmetricKey
    private let appleKey: SymmetricKey
    /// Keys the emailed codes' hashes (`EmailCodeHasher`).
    package let emailCodes: EmailCodeHasher

    package static let keyBytes = 32

    package init(key: [UInt8]) throws(KeyError) {
        guard key.count == Self.keyBytes else { throw KeyError() }
        let root = SymmetricKey(data: key)
        sealing = HKDF<SHA256>.deriveKey(inputKeyMaterial: root, info: Array("chatterd totp secret".utf8), outputByteCount: 32)
        recoveryKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: root, info: Array("chatterd recovery code".utf8), outputByteCount: 32)
        appleKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: root, info: Array("chatterd apple refresh token".utf8), outputByteCount: 32)
        emailCodes = EmailCodeHasher(key: HKDF<SHA256>.deriveKey(inputKeyMaterial: root, info: Array("chatterd email code".utf8), outputByteCount: 32))
    }

    /// A key of the wrong size.
    package struct KeyError: Error, CustomStringConvertible {
        package var description: String { "the second-factor key must be \(SecretBox.keyBytes) bytes" }
    }

    /// A box under a key made now: for tests and for servers that keep nothing across restarts.
    package static func ephemeral() -> SecretBox { try! SecretBox(key: SecureRandom.bytes(keyBytes)) }

    package func seal(_ secret: [UInt8], for userID: UUID) throws -> [UInt8] {
        Array(try AES.GCM.seal(secret, using: sealing, authenticating: Array(userID.text.utf8)).combined!)
    }

    /// nil when the bytes were not sealed under this key for this account (another key, another row, damage).
    package func open(_ sealed: [UInt8], for userID: UUID) -> [UInt8]? {
        // fail-closed: a box that does not open (another key or row, damage) is nil: no secret, so no code is accepted
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let secret = try? AES.GCM.open(box, using: sealing, authenticating: Array(userID.text.utf8))
        else { return nil }
        return Array(secret)
    }

    /// A secret waiting for its first code, sealed for the account *and the session that began it*: only that
    /// session can show it or confirm it, so an enrolment left half done is no gift to another session of the
    /// account (a hand-off's browser, an old or stolen one).
    package func seal(_ secret: [UInt8], for userID: UUID, session: UUID) throws -> [UInt8] {
        Array(try AES.GCM.seal(secret, using: sealing, authenticating: Self.enrolment(userID, session)).combined!)
    }

    package func open(_ sealed: [UInt8], for userID: UUID, session: UUID) -> [UInt8]? {
        // fail-closed: a box that does not open for this session is nil: no enrolment to show or confirm
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let secret = try? AES.GCM.open(box, using: sealing, authenticating: Self.enrolment(userID, session))
        else { return nil }
        return Array(secret)
    }

    /// Recovery codes on their way to the one page that shows them (post/redirect/get), sealed for the account
    /// and session that made them and for their minute: a cookie carries them between the form's answer and
    /// the page, and it opens for no other session, and not after `shownFor` seconds.
    package func sealShown(_ codes: [String], for userID: UUID, session: UUID, at now: Date) throws -> [UInt8] {
        let text = "\(Int(now.timeIntervalSince1970))\n" + codes.joined(separator: "\n")
        return Array(try AES.GCM.seal(Array(text.utf8), using: sealing, authenticating: Self.shown(userID, session)).combined!)
    }

    package static let shownFor: Double = 300

    package func openShown(_ sealed: [UInt8], for userID: UUID, session: UUID, at now: Date) -> [String]? {
        // fail-closed: codes that do not open for this session (or are too old) are none: the page offers new ones
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let text = try? AES.GCM.open(box, using: sealing, authenticating: Self.shown(userID, session))
        else { return nil }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let made = lines.first.flatMap(Double.init), now.timeIntervalSince1970 - made < Self.shownFor, made <= now.timeIntervalSince1970 + 60 else {
            return nil
        }
        return Array(lines.dropFirst())
    }

    private static func shown(_ userID: UUID, _ session: UUID) -> [UInt8] {
        Array("recovery codes shown:\(userID.text):\(session.text)".utf8)
    }

    /// Distinct from an account's own additional data (its id alone), so neither opens as the other.
    private static func enrolment(_ userID: UUID, _ session: UUID) -> [UInt8] {
        Array("enrolment:\(userID.text):\(session.text)".utf8)
    }

    /// Apple's refresh token for `subject` and `clientID`, sealed under a key of its own: the row it is sealed for
    /// is the additional data, so a token moved to another Apple ID's row does not open.
    package func sealAppleToken(_ token: String, subject: String, clientID: String) throws -> [UInt8] {
        Array(try AES.GCM.seal(Array(token.utf8), using: appleKey, authenticating: Self.appleRow(subject, clientID)).combined!)
    }

    package func openAppleToken(_ sealed: [UInt8], subject: String, clientID: String) -> String? {
        // fail-closed: a token that does not open is nil: it is logged and forgotten; nothing is granted by it
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let token = try? AES.GCM.open(box, using: appleKey, authenticating: Self.appleRow(subject, clientID))
        else { return nil }
        return String(decoding: token, as: UTF8.self)
    }

    private static func appleRow(_ subject: String, _ clientID: String) -> [UInt8] {
        // Lengths first, so no two rows share additional data.
        Array("\(subject.utf8.count):\(subject)\(clientID.utf8.count):\(clientID)".utf8)
    }

    /// What the store keeps of a recovery code: an HMAC of the account and the code.
    package func recoveryHash(_ code: String, for userID: UUID) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array("\(userID.text):\(code)".utf8), using: recoveryKey))
    }
}
