import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation

/// The database `chatterd serve` would open, for the commands that work on it (`backup`, `admin`): real
/// options, so they may come before or after the command's arguments (`chatterd backup --data-dir d copy`
/// and `chatterd backup copy --data-dir d` alike), read through the same settings list as `serve`.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory chatterd serves from (CHATTERD_DATA_DIR).")
    var dataDirectory: String?

    @Option(help: "The database URL chatterd serves (CHATTERD_DATABASE_URL), when it is not DATA_DIR's SQLite file.")
    var database: String?

    /// The configuration these options and the environment give, as `chatterd serve` would read it.
    func configuration() throws -> ServerConfiguration {
        var config = ServerConfiguration()
        var arguments: [String] = []
        if let dataDirectory { arguments += ["--data-dir", dataDirectory] }
        if let database { arguments += ["--database", database] }
        do {
            try config.apply(environment: ProcessInfo.processInfo.environment, arguments: arguments)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        return config
    }
}
