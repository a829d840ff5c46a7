/// Input limits both sides agree on, counted in Unicode characters (grapheme clusters), not bytes.
public enum Limits {
    /// Display names and the `name` of an anonymous chatt. Longer Google names are shortened, not refused.
    public static let nameCharacters = 64
    /// The text of one chatt.
    public static let messageCharacters = 1_000
    /// Any request body, in bytes. Larger bodies are refused with 413 before they are read in full.
    public static let bodyBytes = 64 * 1024
}
