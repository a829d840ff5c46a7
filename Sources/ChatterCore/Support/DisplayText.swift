/// Labels that come from clients and are shown to other people (device names from User-Agent, display
/// names) are cleaned before they are stored, so what an operator reads is what the text is:
/// - control characters (Cc) and line or paragraph separators become a space;
/// - format characters (Cf: bidi overrides and isolates, zero-width spaces, the BOM, tag characters) go,
///   except the zero-width joiner, which emoji sequences need and which cannot reorder or hide text;
/// - combining marks at the start go, since they would attach to whatever the page puts before the label,
///   and a base character keeps at most `marksPerBase` of them (thousands of stacked marks are one
///   `Character` to a length limit, and paint over the lines around them);
/// - runs of spaces become one, and the ends are trimmed.
/// Escaping on output (`HTMLText`) is what keeps pages safe; this keeps them honest.
package enum DisplayText {
    package static let marksPerBase = 4

    package static func clean(_ raw: String) -> String {
        var out = String.UnicodeScalarView()
        var space = false
        var marks = 0
        for scalar in raw.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator:
                space = !out.isEmpty
            case .format:
                if scalar == "\u{200D}", !out.isEmpty { out.append(scalar) }
            case .nonspacingMark, .spacingMark, .enclosingMark:
                if !out.isEmpty, marks < Self.marksPerBase { out.append(scalar) }
                marks += 1
            default:
                if space { out.append(" ") }
                space = false
                marks = 0
                out.append(scalar)
            }
        }
        return String(out)
    }
}
