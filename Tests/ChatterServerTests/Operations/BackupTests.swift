import ChatterTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `chatterd backup`: a consistent copy of the SQLite database taken while writes go on.
@Suite struct BackupTests {
    /// What the writers share: the chatts whose writes returned, and when to stop.
    final class Load: Sendable {
        let acknowledged = Mutex<[UUID]>([])
        let stop = Mutex(false)
    }

    @Test func aBackupUnderWriteLoadIsIntactAndHoldsEveryWriteAcknowledgedBeforeIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/chatterd.sqlite"
            let copy = directory + "/backup.sqlite"
            let logger = Logger(label: "backup-test")
            let store = try await SQLiteStore.open(path: path, logger: logger)
            do {
                let user = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "1"))
                let load = Load()
                // Four writers post until told to stop, recording each chatt once its write returned.
                let writers = (0..<4).map { writer in
                    Task {
                        var n = 0
                        while !load.stop.withLock({ $0 }) {
                            let chatt = Chatt(name: "Ada", message: "\(writer)-\(n)", time: Date(), userID: user.id)
                            try await store.addChatt(chatt)
                            load.acknowledged.withLock { $0.append(chatt.id) }
                            n += 1
                        }
                    }
                }
                // However slow the machine: some writes before the backup, and some after it began.
                func waitFor(_ count: Int) async throws {
                    for _ in 0..<2_000 where load.acknowledged.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(5)) }
                }
                try await waitFor(100)
                let before = Set(load.acknowledged.withLock { $0 })
                let bytes = try await SQLiteBackup.run(database: path, to: copy, logger: logger)
                try await waitFor(before.count + 50)
                load.stop.withLock { $0 = true }
                for writer in writers { try await writer.value }
                let total = load.acknowledged.withLock { $0.count }
                #expect(before.count >= 100, "writes were going on (\(before.count) before the backup)")
                #expect(total > before.count, "and went on during and after it (\(total) in all)")
                #expect(bytes > 0)

                let backup = try SQLiteConnection.open(path: copy)
                let integrity = try await backup.query("PRAGMA integrity_check").first?.column("integrity_check")?.string
                let ids = Set(try await backup.query("SELECT id FROM chatts").compactMap { $0.column("id")?.string.flatMap(UUID.init(text:)) })
                let version = try await backup.query("PRAGMA user_version").first?.column("user_version")?.integer
                try await backup.close()
                #expect(integrity == "ok")
                #expect(before.isSubset(of: ids), "\(before.subtracting(ids).count) acknowledged writes missing from the copy")
                #expect(ids.count <= total)
                #expect(version == SQLiteMigrations.all.count, "the copy opens as this chatterd's schema, not as a new database")
                #expect(FileManager.default.fileExists(atPath: copy + ".partial") == false)
                print(
                    "backup under load: \(before.count) chatts acknowledged before it, \(ids.count) in the copy, \(total) in all; \(bytes) bytes, integrity_check \(integrity ?? "?")"
                )
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
        }
    }

    @Test func anExistingDestinationIsRefusedAndLeftAlone() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/chatterd.sqlite"
            let copy = directory + "/exists.sqlite"
            let store = try await SQLiteStore.open(path: path)
            try await store.close()
            try Data("mine".utf8).write(to: URL(filePath: copy))
            await #expect(throws: BackupError.self) { try await SQLiteBackup.run(database: path, to: copy, logger: Logger(label: "t")) }
            #expect(try String(contentsOfFile: copy, encoding: .utf8) == "mine")
            await #expect(throws: BackupError.self) {
                try await SQLiteBackup.run(database: directory + "/none.sqlite", to: directory + "/new.sqlite", logger: Logger(label: "t"))
            }
        }
    }
}
