import ArgumentParser
import ChatterKit
import Foundation

/// Options every command takes. Each has an environment variable and a config-file key; a flag wins
/// over the variable, the variable over the file.
struct GlobalOptions: ParsableArguments {
    @Option(help: "chatterd's URL. [CHATTER_SERVER, config \"server\", default https://127.0.0.1:8443]")
    var server: String?
    @Option(help: "A PEM certificate to trust, e.g. chatterd-data/chatterd.crt. [CHATTER_CERT, config \"cert\"]")
    var cert: String?
    @Option(help: "The server's public-key pin (base64 SHA-256 SPKI, as chatterd prints it). [CHATTER_PIN, config \"pin\"]")
    var pin: String?
    @Option(help: "Where the session is kept: auto (keyring, else a private file), keyring or file. [CHATTER_STORE, config \"store\"]")
    var store: String?
    @Option(help: "Config file. [CHATTER_CONFIG, default ~/.config/chatter/config.json]")
    var config: String?
    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false
}

/// The resolved settings of one run.
struct Settings: Sendable, Equatable {
    var server: URL
    var certificate: String?
    var pin: String?
    var store: String
    var googleClientID: String?
    /// Holds the config file and, when no keyring answers, the session files.
    var home: String
    var json: Bool

    struct FileValues: Decodable {
        var server: String?
        var cert: String?
        var pin: String?
        var store: String?
        var googleClientID: String?
    }

    static func resolve(_ options: GlobalOptions, environment env: [String: String]) throws -> Settings {
        func variable(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home =
            variable("CHATTER_HOME")
            ?? ((variable("XDG_CONFIG_HOME") ?? ((variable("HOME") ?? NSHomeDirectory()) + "/.config")) + "/chatter")
        let configPath = options.config ?? variable("CHATTER_CONFIG") ?? home + "/config.json"
        var file = FileValues()
        if let data = FileManager.default.contents(atPath: configPath) {
            do { file = try JSONDecoder().decode(FileValues.self, from: data) } catch {
                throw ValidationError("\(configPath) is not a valid config file: \(error.localizedDescription)")
            }
        } else if options.config != nil || variable("CHATTER_CONFIG") != nil {
            throw ValidationError("cannot read the config file \(configPath)")
        }
        let serverText = options.server ?? variable("CHATTER_SERVER") ?? file.server ?? "https://127.0.0.1:8443"
        guard let server = URL(string: serverText), let scheme = server.scheme, ["http", "https"].contains(scheme), server.host != nil else {
            throw ValidationError("\(serverText) is not an http(s) URL")
        }
        let store = options.store ?? variable("CHATTER_STORE") ?? file.store ?? "auto"
        guard ["auto", "keyring", "file"].contains(store) else { throw ValidationError("--store must be auto, keyring or file") }
        return Settings(
            server: server, certificate: options.cert ?? variable("CHATTER_CERT") ?? file.cert,
            pin: options.pin ?? variable("CHATTER_PIN") ?? file.pin, store: store,
            googleClientID: variable("CHATTER_GOOGLE_CLIENT_ID") ?? file.googleClientID, home: home, json: options.json)
    }

    /// Sessions of different servers are kept apart.
    var serverKey: String {
        let host = server.host ?? "server"
        return server.port.map { "\(host)_\($0)" } ?? host
    }
}
