/// The checks and log form of a bare email address (`local@domain`), shared by both transports.
enum MailAddress {
    /// Refuses anything that could smuggle a header or an SMTP command (line breaks, controls, angle
    /// brackets, spaces), because recipients come from what users type. Non-ASCII addresses would need
    /// SMTPUTF8, which chatterd does not negotiate, so they are refused too rather than mangled.
    static func validate(_ address: String, role: String) throws {
        let bytes = Array(address.utf8)
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, bytes.count <= 254 else {
            throw MailError("invalid \(role) address: expected local@domain")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }) else {
            throw MailError("invalid \(role) address: only printable ASCII without spaces or angle brackets is supported")
        }
    }

    static func domain(of address: String) -> String {
        address.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }

    /// `a***@example.com`: enough for an operator to match a complaint, without listing users' addresses.
    static func redacted(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@"), let first = address.first, at != address.startIndex else { return "***" }
        return "\(first)***\(address[at...])"
    }
}
