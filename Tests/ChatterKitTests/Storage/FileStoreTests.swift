import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit

@Suite struct FileStoreTests {
    @Test func filesAreReadableOnlyByTheUser() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/chatter"
            try await FileStore(directory: directory).write(Data("secret".utf8), for: StoreKey.session)
            let file = try FileManager.default.attributesOfItem(atPath: directory + "/session")
            let folder = try FileManager.default.attributesOfItem(atPath: directory)
            #expect((file[.posixPermissions] as? Int) == 0o600)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
        }
    }

    @Test func writesLeaveNoTemporaryFilesBehind() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileStore(directory: directory)
            for index in 0..<20 { try await store.write(Data("value \(index)".utf8), for: StoreKey.session) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["session"])
            #expect(try await store.read(StoreKey.session) == Data("value 19".utf8))
        }
    }

    @Test func concurrentWritersNeverTearTheFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileStore(directory: directory)
            let values = (0..<30).map { Data(String(repeating: "\($0 % 10)", count: 10_000).utf8) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in values { group.addTask { try await store.write(value, for: "k") } }
                try await group.waitForAll()
            }
            #expect(values.contains(try #require(try await store.read("k"))))
        }
    }

    @Test func keysCannotEscapeTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let store = FileStore(directory: directory + "/inner")
            try await store.write(Data("x".utf8), for: "../escape")
            #expect(FileManager.default.fileExists(atPath: directory + "/escape") == false)
            #expect(try await store.read("../escape") == Data("x".utf8))
        }
    }

    #if os(Linux)
        @Test func defaultStoreFallsBackToAFileWithAWarningWhenNoKeyringAnswers() async throws {
            try await withTemporaryDirectory { directory in
                let warnings = WarningLog()
                // A keyring that cannot answer (its tool is missing), as on a server with no desktop session.
                let store = await DefaultStore.make(
                    keyring: SecretServiceStore(service: "x", tool: "/nonexistent/secret-tool"), fallbackDirectory: directory + "/sessions",
                    warn: { warnings.add($0) })
                #expect(store is FileStore)
                #expect(warnings.lines.count == 1)
                #expect(warnings.lines.first?.contains(directory) == true)

                // Once the files are in use, later runs do not repeat it.
                try await (store as? FileStore)?.write(Data("s".utf8), for: StoreKey.session)
                _ = await DefaultStore.make(
                    keyring: SecretServiceStore(service: "x", tool: "/nonexistent/secret-tool"), fallbackDirectory: directory + "/sessions",
                    warn: { warnings.add($0) })
                #expect(warnings.lines.count == 1)
            }
        }

        /// A tool with sessions for several servers says it once per machine: the marker, not each server's
        /// directory, decides, so commands that never store a session do not repeat it.
        @Test func theFallbackWarningIsSaidOncePerMarker() async throws {
            try await withTemporaryDirectory { directory in
                let warnings = WarningLog()
                for server in ["a", "b", "a"] {
                    _ = await DefaultStore.make(
                        keyring: SecretServiceStore(service: server, tool: "/nonexistent/secret-tool"),
                        fallbackDirectory: directory + "/sessions/" + server, warnedMarker: directory + "/keyring-fallback-warned",
                        warn: { warnings.add($0) })
                }
                #expect(warnings.lines.count == 1)
                #expect(!FileManager.default.fileExists(atPath: directory + "/sessions/a"), "no session was stored, so no directory")
            }
        }
    #endif
}

final class WarningLog: Sendable {
    private let storage = Mutex<[String]>([])
    func add(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
