import ChatterWire
import Foundation

/// NIST SP 800-63B-4 password rules: a minimum length, long passwords allowed, no composition rules,
/// common passwords refused. Lengths count Unicode characters, as people do.
public struct PasswordRules: Sendable {
    public var minimumLength: Int
    public var maximumLength = 256
    /// Bounds the work one request can cause; far above any real password.
    public var maximumBytes = 1024
    let blocklist: Set<String>

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

    /// The list shipped in Resources/common-passwords.txt.
    public static let commonPasswords: Set<String> = {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [] }
        return Set(text.split(separator: "\n").lazy.filter { !$0.hasPrefix("#") }.map(String.init))
    }()
}
