import ChatterCore
import ChatterWire
import Foundation

/// NIST SP 800-63B-4 password rules: a minimum length, long passwords allowed, no composition rules,
/// common passwords refused. Lengths count Unicode characters, as people do.
public struct PasswordRules: Sendable {
    public var minimumLength: Int
    public var maximumLength = 256
    /// Bounds the work one request can cause; far above any real password.
    public var maximumBytes = 1024
    package let blocklist: Set<String>

    public init(minimumLength: Int = 8, blocklist: Set<String> = PasswordRules.commonPasswords) {
        self.minimumLength = minimumLength
        self.blocklist = blocklist
    }

    public var policy: PasswordPolicy {
        PasswordPolicy(minimumLength: minimumLength, maximumLength: maximumLength, maximumBytes: maximumBytes, blocksCommonPasswords: true)
    }

    /// Why `password` is not acceptable, in words for the user; nil when it is fine.
    public func problem(with password: String, email: String?) -> String? {
        let length = password.count
        if length < minimumLength { return "Use at least \(minimumLength) characters." }
        if length > maximumLength || password.utf8.count > maximumBytes { return "Use at most \(maximumLength) characters." }
        let folded = password.lowercased()
        if blocklist.contains(folded) { return "This password is too common; choose another." }
        if let email, folded == email.lowercased() || folded == email.lowercased().split(separator: "@").first.map(String.init) {
            return "Do not use your email address as your password."
        }
        return nil
    }

    /// The list shipped in Resources/common-passwords.txt, as `PasswordRules()` uses it: empty only when the
    /// list is missing, which chatterd refuses at start (`ServerConfiguration.validate`, through
    /// `bundledBlocklist`) rather than accept every common password without a word.
    // fail-closed: empty only when the list is missing, and then ServerConfiguration.validate refuses to start
    public static let commonPasswords: Set<String> = (try? bundledBlocklist.get()) ?? []

    /// The bundled list, or why it cannot be used.
    public static let bundledBlocklist: Result<Set<String>, ConfigurationError> = Result {
        try blocklist(at: Bundle.module.url(forResource: "common-passwords", withExtension: "txt"))
    }.mapError { $0 as? ConfigurationError ?? ConfigurationError("\($0)") }

    /// Fewer words than this is not the list shipped (about 28,000): a truncated or replaced file.
    package static let minimumBlocklistSize = 10_000

    /// The passwords listed in the file at `url`, one a line (`#` starts a comment).
    package static func blocklist(at url: URL?) throws -> Set<String> {
        guard let url else {
            throw ConfigurationError(
                "chatterd's list of common passwords is missing from its resources: reinstall chatterd (without it, every common password would be accepted)")
        }
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw ConfigurationError("cannot read chatterd's list of common passwords at \(url.path): \(error)")
        }
        let words = Set(text.split(separator: "\n").lazy.filter { !$0.hasPrefix("#") }.map(String.init))
        guard words.count >= minimumBlocklistSize else {
            throw ConfigurationError(
                "chatterd's list of common passwords at \(url.path) holds \(words.count), not the \(minimumBlocklistSize) or more it ships with: reinstall chatterd"
            )
        }
        return words
    }
}
