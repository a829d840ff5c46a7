/// The text an operator searches accounts by, as a `LIKE` pattern that matches it anywhere: its own
/// `%`, `_` and `\` match only themselves (the queries say `ESCAPE '\'`). Scalar by scalar, as the
/// databases read it: a wildcard followed by a combining mark is one `Character` to Swift but still a
/// wildcard to SQL (the fuzz target `web-forms` found it).
package enum AdminSearch {
    package static func likePattern(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return "%" + String(escaped) + "%"
    }
}
