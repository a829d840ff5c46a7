import ChatterCore
import ChatterDomain
import ChatterStorage
import Mustache

/// The one escaping rule for every value a page renders. Every template is registered with this content
/// type (`WebPages.bundled` prepends the pragma), so no template can opt out.
///
/// swift-mustache's own HTML escaping compares whole `Character`s: `"` followed by a combining mark
/// (U+0301) is one `Character` that is not `"`, and went out unescaped, closing an attribute. Here each
/// Unicode scalar is looked at on its own, so a combining mark cannot hide a quote or a bracket. Control
/// characters other than tab, newline and carriage return become U+FFFD: a NUL or an escape sequence has
/// no business in a page, and HTML parsers treat some of them specially.
struct HTMLText: MustacheContentType {
    static let pragmaName = "CHATTER_HTML"
    /// What `WebPages` puts before every template's text.
    static let pragma = "{{% CONTENT_TYPE: \(pragmaName)}}"

    func escapeText(_ text: String) -> String { Self.escape(text) }

    static func escape(_ text: String) -> String {
        // Most values need nothing; only those with a byte to replace are rebuilt.
        guard text.utf8.contains(where: needsWork) else { return text }
        var out = String.UnicodeScalarView()
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            case "\t", "\n", "\r": out.append(scalar)
            default: out.append(isControl(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return String(out)
    }

    /// C0 controls, DEL and C1 controls (U+0080–U+009F).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }

    /// A UTF-8 byte that may need replacing: the five specials, a control, or the lead byte of U+0080–U+00BF (C2).
    private static func needsWork(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0x7F, 0xC2: true
        default: byte < 0x20
        }
    }
}
