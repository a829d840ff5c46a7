import Foundation

/// Checks both sides agree on: an email's shape, and a password against the server's policy.
public enum FormValidation {
    /// A plausible address: one "@", something before it, a dotted domain after it, no spaces. The
    /// server's emailed code is the real proof; this only catches typos early.
    public static func emailProblem(_ email: String) -> String? {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "Enter your email address." }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !trimmed.contains(where: \.isWhitespace) else {
            return "Enter an address like name@example.com."
        }
        let domain = parts[1]
        guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return "Enter an address like name@example.com."
        }
        return nil
    }

    /// The policy's length rules (SP 800-63B: length, not composition). Counted in characters, and the
    /// UTF-8 form must fit the hash's input, so nothing is silently cut.
    /// The server also refuses the email (or its local part) as the password; so does this.
    public static func passwordProblem(_ password: String, policy: PasswordPolicy, email: String? = nil) -> String? {
        if password.count < policy.minimumLength { return "Use at least \(policy.minimumLength) characters." }
        if password.count > policy.maximumLength { return "Use at most \(policy.maximumLength) characters." }
        if password.utf8.count > policy.maximumBytes { return "This password is too long to store safely; shorten it." }
        // The server's blocklist is far longer; this catches the commonest as the user types.
        if policy.blocksCommonPasswords, PasswordStrength.isCommon(password) { return "This password is too common; choose another." }
        let folded = password.lowercased()
        let address = email?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        if !address.isEmpty, folded == address || folded == address.split(separator: "@").first.map(String.init) {
            return "Do not use your email address as your password."
        }
        return nil
    }
}

/// A rough strength indication: length and variety, with common passwords and repeats marked weak. It
/// informs the user; the server's policy decides.
public enum PasswordStrength: Int, Sendable, Comparable, CaseIterable {
    /// One of four strengths, weakest first: weak, fair, good, strong.
    case weak, fair, good, strong

    /// Weaker before stronger.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    static let common: Set<String> = [
        "password", "password1", "password123", "12345678", "123456789", "1234567890", "qwerty123", "qwertyuiop",
        "iloveyou", "sunshine", "princess", "football", "baseball", "welcome1", "letmein1", "admin123", "abc12345", "11111111",
    ]

    static func isCommon(_ password: String) -> Bool { common.contains(password.lowercased()) }

    /// The word a strength meter shows.
    public var label: String {
        switch self {
        case .weak: return "Weak"
        case .fair: return "Fair"
        case .good: return "Good"
        case .strong: return "Strong"
        }
    }

    /// How full a strength meter is, from 0.25 (weak) to 1 (strong).
    public var fraction: Double { Double(rawValue + 1) / Double(Self.allCases.count) }

    /// Estimates `password`'s strength.
    public static func estimate(_ password: String) -> PasswordStrength {
        if password.isEmpty || isCommon(password) || Set(password).count <= 2 { return .weak }
        var classes = 0
        if password.contains(where: \.isLowercase) { classes += 1 }
        if password.contains(where: \.isUppercase) { classes += 1 }
        if password.contains(where: \.isNumber) { classes += 1 }
        if password.contains(where: { !$0.isLetter && !$0.isNumber }) { classes += 1 }
        // Roughly bits of guessing work: length times the log2 of the alphabet the classes suggest.
        let alphabet = [0, 26, 52, 62, 94][classes]
        let bits = Double(password.count) * log2(Double(max(alphabet, 10)))
        switch bits {
        case ..<40: return .weak
        case ..<60: return .fair
        case ..<80: return .good
        default: return .strong
        }
    }
}
