import Foundation

/// Provider-signed test vectors, kept byte for byte under `Tests/ChatterServerTests/Fixtures/vectors`
/// (sources and licences in its README) and read in place.
enum Vectors {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vectors")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func files(in directory: String, withExtension ext: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(directory))
            .filter { $0.hasSuffix("." + ext) }.sorted().map { directory + "/" + $0 }
    }

    /// The claims of a token, decoded without verification, to pin the clock to its own `iat`/`exp`.
    static func claims(of token: String) -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return [:] }
        var segment = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while segment.count % 4 != 0 { segment += "=" }
        guard let data = Data(base64Encoded: segment) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
}
