import Crypto
import ExtrasBase64
import Foundation

/// A bearer secret handed to the client exactly once. Only its SHA-256 hash is stored, so the secret itself
/// is never compared or kept.
public struct SessionToken: Sendable {
    /// 43 base64url characters encoding 256 bits: random, or (session tokens) 192 random bits and a
    /// 64-bit tag under the database's `SessionTokenKey`. A native session's access and refresh tokens also
    /// name it: 64 characters, the session's 16-byte id before the random bits, all of it under the tag.
    public let secret: String

    public static func generate() -> SessionToken {
        SessionToken(bytes: SecureRandom.bytes(32))
    }

    /// A session's access or refresh token: one `key` can tell from a token chatterd never issued without
    /// asking the database.
    public static func generate(signedWith key: SessionTokenKey) -> SessionToken {
        let random = SecureRandom.bytes(SessionTokenKey.randomBytes)
        return SessionToken(bytes: random + key.tag(random))
    }

    /// A native session's token: the store finds its session by id, not through an index of every token's
    /// hash, and only chatterd can name a session in a token (see `SessionTokenKey.session(namedBy:as:)`).
    /// The tag also covers the token's kind, so an access token is never taken for a refresh token.
    public static func generate(naming session: UUID, as kind: SessionTokenKind, signedWith key: SessionTokenKey) -> SessionToken {
        let named = session.bytes + SecureRandom.bytes(SessionTokenKey.randomBytes)
        return SessionToken(bytes: named + key.tag(named, kind: kind))
    }

    private init(bytes: [UInt8]) {
        secret = Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    public var hash: [UInt8] { Self.hash(secret) }

    /// The lookup key for a presented secret, whatever its shape: a wrong or garbled token simply finds nothing.
    public static func hash(_ presented: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(presented.utf8)))
    }
}

/// What a native session's token is for. Its tag covers it, so a token of one kind presented as the other
/// names no session: an access token sent to `/v1/auth/refresh` is an unknown refresh token, not reuse.
public enum SessionTokenKind: UInt8, Sendable {
    case access = 1
    case refresh = 2
}

/// The key session tokens are tagged with, kept in the database so every instance shares it. A presented
/// token without a valid tag was never issued by chatterd on this database, so it is refused before any
/// lookup: a flood of guessed or made-up tokens costs a hash, not a query.
public struct SessionTokenKey: Sendable {
    package static let randomBytes = 24, tagBytes = 8, sessionBytes = 16

    /// HMAC-SHA256 keyed once: each tag copies it rather than deriving the key's pads again.
    private let keyed: HMAC<SHA256>
    /// Sessions issued before tokens were tagged (by an older chatterd on this database) may be live until
    /// then, so until then an untagged token is still looked up. A database that always tagged has 0.
    public let untaggedUntil: Date

    public init(key: [UInt8], untaggedUntil: Date) {
        self.keyed = HMAC<SHA256>(key: SymmetricKey(data: key))
        self.untaggedUntil = untaggedUntil
    }

    package static func newKey() -> [UInt8] {
        SecureRandom.bytes(32)
    }

    /// Unnamed tokens (chatterIDs, cookies) carry no kind; a named token's kind comes first under the MAC.
    package func tag(_ random: [UInt8], kind: SessionTokenKind? = nil) -> [UInt8] {
        var mac = keyed
        if let kind { mac.update(data: [kind.rawValue]) }
        mac.update(data: random)
        return Array(mac.finalize().prefix(Self.tagBytes))
    }

    /// Whether `presented` could be a live token of this database: tagged under this key, or untagged
    /// while sessions from before tagging may live.
    public func mayHaveIssued(_ presented: String, at now: Date) -> Bool {
        isTagged(presented) || now < untaggedUntil
    }

    package func isTagged(_ presented: String) -> Bool {
        // Only the encoding chatterd issues: the 43rd character also carries two unused bits, and a token
        // spelled with them set is not the token that was issued (its hash finds nothing).
        guard presented.utf8.count == 43, let bytes = taggedBytes(presented, count: Self.randomBytes + Self.tagBytes) else { return false }
        return Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter]) == presented
    }

    /// The session a token of `kind` names, when this key tagged it as that kind: the tag covers the id and
    /// the kind, so a token cannot be made to name another session or pass for the other kind, and a tagged
    /// token naming a session was issued for it.
    ///
    /// Access tokens named before kinds were tagged (2026-11-25) carry a tag over the id alone; they are
    /// still accepted, and expire within an access lifetime. Refresh tokens of that form are not: see
    /// `session(namedWithoutKindBy:)`.
    public func session(namedBy presented: String, as kind: SessionTokenKind) -> UUID? {
        named(presented, kind: kind) ?? (kind == .access ? named(presented, kind: nil) : nil)
    }

    /// The session a token named before kinds were tagged names. It may be that session's refresh token or
    /// one of its access tokens, so it may rotate only as the session's current refresh token; anything
    /// else is refused without ending the session (`SessionService.refresh`).
    public func session(namedWithoutKindBy presented: String) -> UUID? {
        named(presented, kind: nil)
    }

    private func named(_ presented: String, kind: SessionTokenKind?) -> UUID? {
        // 48 bytes are exactly 64 characters, with no unused bits to spell twice.
        guard presented.utf8.count == 64, let bytes = taggedBytes(presented, count: Self.sessionBytes + Self.randomBytes + Self.tagBytes, kind: kind)
        else { return nil }
        return UUID(bytes: bytes.prefix(Self.sessionBytes))
    }

    /// The decoded token when it is `count` bytes whose last `tagBytes` tag the rest (and `kind`) under this key.
    private func taggedBytes(_ presented: String, count: Int, kind: SessionTokenKind? = nil) -> [UInt8]? {
        // fail-closed: a token that is not base64url is nil: it names no session and is refused
        guard let bytes = try? Base64.decode(string: presented, options: [.base64UrlAlphabet, .omitPaddingCharacter]), bytes.count == count
        else { return nil }
        // Compared in constant time, so response timing says nothing about how much of a tag was right.
        return constantTimeEqual(tag(Array(bytes.prefix(count - Self.tagBytes)), kind: kind), Array(bytes.suffix(Self.tagBytes))) ? bytes : nil
    }
}
