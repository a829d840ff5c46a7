import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation
import Logging

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database, consistently, while chatterd serves.",
        discussion: """
            The database is the one chatterd serve would open (--data-dir, --database or their variables). \
            The copy is one snapshot (SQLite's VACUUM INTO), synced to disk before it takes DEST's name. Restore by \
            stopping chatterd and putting the copy in the database's place (removing its -wal and -shm files). For \
            PostgreSQL, use pg_dump. The copy does not hold the key its sealed secrets open with (DATA_DIR/second-factor.key, \
            or --second-factor-key): back that file up too, apart from the copy; chatterd will not start on the copy \
            without it.
            """)

    @Argument(help: "The new file to write (it must not exist).")
    var destination: String

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let config = try database.configuration()
        guard case .sqlite(let path) = try config.databaseLocation() else {
            throw ValidationError("the database is PostgreSQL: back it up with pg_dump (see the README)")
        }
        do {
            let bytes = try await SQLiteBackup.run(database: path, to: destination, logger: Logger(label: "chatterd.backup"))
            print("backed up \(path) to \(destination) (\(bytes) bytes)")
            print("its sealed secrets open only with the key file \(config.secondFactorKeyFile): back that up too, kept apart from the copy")
        } catch {
            FileHandle.standardError.write(Data("chatterd backup: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
