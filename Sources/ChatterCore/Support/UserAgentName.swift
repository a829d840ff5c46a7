import ChatterWire

/// A short name for a User-Agent header, for the sessions list and the notices: what a person recognises.
package enum UserAgentName {
    package static let known: [(String, String)] = [
        ("Edg/", "Edge"), ("Chrome/", "Chrome"), ("Firefox/", "Firefox"), ("Safari/", "Safari"), ("chatter/", "chatter (terminal)"),
        ("CFNetwork", "Apple app"), ("okhttp", "Android app"),
    ]
    package static let systems = ["iPhone", "iPad", "Watch", "Android", "Mac OS X", "macOS", "Windows", "Linux"]

    /// For the sessions list: an app by the name it gives itself, a browser by its family, anything else by
    /// its first 40 characters.
    package static func short(_ agent: String) -> String {
        let name = ChatterKitAgent.appName(agent) ?? known.first { agent.contains($0.0) }?.1 ?? String(agent.prefix(40))
        return onSystem(name, agent)
    }

    /// For mail the server sends: only names chatterd itself knows ("Chrome on Windows", "Chatter app on
    /// iPhone"), never words the client chose, which would put a stranger's text in a message from the server.
    package static func family(_ agent: String) -> String? {
        let name = agent.contains("ChatterKit/") ? "Chatter app" : known.first { agent.contains($0.0) }?.1
        return name.map { onSystem($0, agent) }
    }

    private static func onSystem(_ name: String, _ agent: String) -> String {
        let system = systems.first { agent.contains($0) }
        return system.map { "\(name) on \($0 == "Mac OS X" ? "macOS" : $0)" } ?? name
    }
}
