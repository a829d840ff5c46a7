/// The text an operator searches accounts by, as a `LIKE` pattern that matches it anywhere: its own
/// `%`, `_` and `\` match only themselves (the queries say `ESCAPE '\'`).
enum AdminSearch {
    static func likePattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
