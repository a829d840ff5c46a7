import ChatterCore

/// An address as `MailMessage` carries it: bare (`ada@example.com`) or with a display name
/// (`Chatter <no-reply@example.com>`), which chatterd's default sender uses. Shared by both transports.
package struct MailAddress: Equatable {
    package var name: String?
    /// The bare `local@domain`, for the SMTP envelope and for logs.
    package var address: String

    package init(_ text: String, role: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            self.name = name.isEmpty ? nil : Self.unquoted(name)
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        } else {
            address = trimmed
        }
        try Self.validate(address, role: role)
        if let name, name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw MailError("invalid \(role) name: control characters (line breaks) are not allowed")
        }
    }

    /// The header form: a name of plain words as it is, other ASCII names quoted, others as encoded-words.
    package var header: String {
        guard let name else { return address }
        let plain = name.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || " !#$%&'*+-/=?^_`{|}~".unicodeScalars.contains($0)
        }
        if plain { return "\(name) <\(address)>" }
        guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return "\(MailMessage.encodedWords(name)) <\(address)>" }
        let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(escaped)\" <\(address)>"
    }

    /// Refuses anything that could smuggle a header or an SMTP command (line breaks, controls, angle
    /// brackets, spaces), because recipients come from what users type. Non-ASCII addresses would need
    /// SMTPUTF8, which chatterd does not negotiate, so they are refused too rather than mangled.
    package static func validate(_ address: String, role: String) throws {
        let bytes = Array(address.utf8)
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, bytes.count <= 254 else {
            throw MailError("invalid \(role) address: expected local@domain")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }) else {
            throw MailError("invalid \(role) address: only printable ASCII without spaces or angle brackets is supported")
        }
    }

    package var domain: String {
        address.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }

    /// `a***@example.com`: enough for an operator to match a complaint, without listing users' addresses.
    package var redacted: String {
        guard let at = address.lastIndex(of: "@"), let first = address.first, at != address.startIndex else { return "***" }
        return "\(first)***\(address[at...])"
    }

    private static func unquoted(_ name: String) -> String {
        guard name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") else { return name }
        return String(name.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
    }
}
