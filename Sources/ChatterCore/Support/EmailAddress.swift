import Foundation

/// Email addresses are checked before anything is stored or counted, and kept in one spelling: Unicode
/// NFC, lower-cased, so composed and decomposed forms of an address are one account with one set of
/// limits. Refused: more than 254 bytes (a local part over 64), control, format (zero-width), private-use,
/// unassigned and other invisible characters, any space, and a domain that is not a valid host name.
public enum EmailAddress {
    public static let maximumBytes = 254

    public static func normalize(_ raw: String) -> String? {
        guard raw.utf8.count <= 4 * maximumBytes else { return nil }  // no work on megabytes
        let lowered = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard let email = lowered.utf8.allSatisfy({ $0 < 0x80 }) ? asciiForm(lowered) : unicodeForm(lowered) else { return nil }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64, let domain = host(String(parts[1])) else { return nil }
        return "\(parts[0])@\(domain)"
    }

    /// ASCII is its own NFC and its visible characters are "!" through "~": most addresses take this path,
    /// which skips Foundation's NFC (a bridged NSString on Linux, the costliest step of a sign-in's parsing).
    /// A test shows it answers as `unicodeForm` does for every ASCII character.
    package static func asciiForm(_ lowered: String) -> String? {
        guard lowered.utf8.count <= maximumBytes, lowered.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return lowered
    }

    package static func unicodeForm(_ lowered: String) -> String? {
        let email = lowered.precomposedStringWithCanonicalMapping
        // Foundation's NFC on Linux can cut a code point above U+FFFF followed by a combining mark to its
        // low 16 bits (U+10041 U+0301 becomes U+00C1): the result must still be canonically equivalent
        // (Swift's `==`) to what went in, or the address is refused rather than turned into another one.
        guard email == lowered, email.utf8.count <= maximumBytes, email.unicodeScalars.allSatisfy(isVisible) else { return nil }
        return email
    }

    /// A character a person can see and type: no controls, format characters (zero-width joiners, marks
    /// that change direction), private-use, unassigned or default-ignorable code points, and no spaces.
    package static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.isWhitespace { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .privateUse, .surrogate, .unassigned, .spaceSeparator, .lineSeparator, .paragraphSeparator: return false
        default: return true
        }
    }

    /// The domain checked as IDNA (UTS #46) validity rules ask: labels of 1–63 bytes, at least two, no
    /// leading or trailing hyphen, ASCII labels letters, digits and hyphens (`xn--` labels included),
    /// Unicode labels letters, marks and digits not starting with a combining mark, and a top-level label
    /// that is not all digits. The ideographic full stops IDNA maps to "." are read as ".".
    package static func host(_ raw: String) -> String? {
        // An ASCII domain has no ideographic stops to map, and is read byte by byte rather than by Character.
        let domain = raw.utf8.allSatisfy { $0 < 0x80 } ? raw : String(raw.map { "。．｡".contains($0) ? "." : $0 })
        guard domain.utf8.count <= 253 else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy(isLabel), let last = labels.last, !last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return domain
    }

    package static func isLabel(_ label: Substring) -> Bool {
        guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-" else { return false }
        if label.utf8.allSatisfy({ $0 < 0x80 }) {
            guard label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else { return false }
            // "ab--" in the third and fourth places is reserved for encodings; only punycode's "xn--" is one.
            let bytes = Array(label.utf8)
            let reserved = bytes.count >= 4 && bytes[2] == 0x2D && bytes[3] == 0x2D
            return !reserved || (label.hasPrefix("xn--") && bytes.count > 4)
        }
        guard let first = label.unicodeScalars.first, !isCombiningMark(first) else { return false }
        return label.unicodeScalars.allSatisfy { scalar in
            if scalar == "-" { return true }
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
                return scalar.value > 0x7F || (scalar.value >= 0x61 && scalar.value <= 0x7A) || (scalar.value >= 0x30 && scalar.value <= 0x39)
            default:
                return false
            }
        }
    }

    package static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        [.nonspacingMark, .spacingMark, .enclosingMark].contains(scalar.properties.generalCategory)
    }
}
