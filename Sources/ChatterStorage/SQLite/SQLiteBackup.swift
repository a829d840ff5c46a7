import ChatterCore
import Foundation
import Logging

/// An online backup of chatterd's SQLite database, safe while chatterd serves: `VACUUM INTO` copies one
/// consistent snapshot (a read transaction in WAL mode, so writers go on) into a new file beside the
/// destination, which is fsynced and then renamed into place. A file copy could catch the database
/// between a commit and its checkpoint; this cannot.
public enum SQLiteBackup {
    /// Copies the database at `path` to `destination`, which must not exist yet. Returns the copy's size in bytes.
    @discardableResult
    public static func run(database path: String, to destination: String, logger: Logger) async throws -> Int {
        let files = FileManager.default
        guard files.fileExists(atPath: path) else { throw BackupError("no database at \(path)") }
        guard !files.fileExists(atPath: destination) else { throw BackupError("\(destination) exists already; name a new file") }
        let partial = destination + ".partial"
        try? files.removeItem(atPath: partial)
        let connection = try SQLiteConnection.open(path: path)
        do {
            _ = try await connection.query("PRAGMA busy_timeout = 5000")
            // A copy of the whole file: on a thread of its own, never one that serves requests.
            _ = try await connection.queryOnThreadPool("VACUUM INTO ?", [.text(partial)])
            try await connection.close()
        } catch {
            try? await connection.close()
            try? files.removeItem(atPath: partial)
            throw error
        }
        // VACUUM INTO does not sync what it wrote: the copy is made durable before it takes the name.
        try fsyncFile(atPath: partial)
        try files.moveItem(atPath: partial, toPath: destination)
        let directory = (destination as NSString).deletingLastPathComponent
        try fsyncFile(atPath: directory.isEmpty ? "." : directory)
        return (try files.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
    }
}

/// Why a backup could not be made, for the operator.
public struct BackupError: Error, CustomStringConvertible {
    public let description: String
    package init(_ description: String) { self.description = description }
}
