import Foundation

/// A sign-in nonce, for Apple and Google alike: the app passes `hashed` to the provider's request and sends
/// `raw` to chatterd, which checks that the identity token carries SHA-256(raw), so a stolen token cannot be
/// replayed.
public struct Nonce: Sendable, Equatable {
    /// The nonce itself, which chatterd receives with the identity token; Apple gets only `hashed`.
    public let raw: String
    /// Lower-case hex SHA-256 of `raw`, as Apple embeds it in the token.
    public let hashed: String

    /// The nonce `raw`, with its hash; `generate(length:)` makes a random one.
    public init(raw: String) {
        self.raw = raw
        hashed = SHA256Digest.hex(Array(raw.utf8))
    }

    /// 32 characters from the system's CSPRNG.
    public static func generate(length: Int = 32) -> Nonce {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVXYZabcdefghijklmnopqrstuvwxyz-._")
        var generator = SystemRandomNumberGenerator()
        return Nonce(raw: String((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
    }
}

/// The name `Nonce` had when only Sign in with Apple used it.
@available(*, deprecated, renamed: "Nonce")
public typealias AppleNonce = Nonce
