/// The `User-Agent` ChatterKit sends (`App/1.2 ChatterKit/0.3.0 (iOS 18.1; iPhone15,2)`), read the same way by
/// chatterd's pages and the SDK's session list.
public enum ChatterKitAgent {
    /// The app's name in a ChatterKit agent, "Chatter app" when it names none; nil for any other agent.
    public static func appName(_ agent: String) -> String? {
        guard agent.contains("ChatterKit/") else { return nil }
        let first = agent.prefix { $0 != "/" && $0 != " " }
        return first.isEmpty || first == "ChatterKit" ? "Chatter app" : String(first.prefix(40))
    }
}
