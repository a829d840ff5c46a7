import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// `chatterd admin` as an operator runs it: the built `chatterd` beside this test runner, in a process of
/// its own, on the database a live chatterd serves.
@Suite struct AdminCommandTests {
    static let chatterd = builtProduct("chatterd")

    /// `chatterd` with `arguments`, to its end, without the database settings of this process's environment
    /// (the arguments name the database). Nil off Linux, where child processes are not run; on Linux the
    /// binary is built before the tests (a dependency of this target), so its absence is a failure.
    static func run(_ arguments: [String]) async throws -> ChildProcess.Outcome? {
        #if os(Linux)
            guard FileManager.default.isExecutableFile(atPath: chatterd) else {
                Issue.record("no chatterd beside the test runner at \(chatterd)")
                return nil
            }
            return try await ChildProcess.run(
                "/usr/bin/env", ["-u", "CHATTERD_DATA_DIR", "-u", "CHATTERD_DATABASE_URL", chatterd] + arguments, timeout: .seconds(120))
        #else
            print("skipping: child processes are run on Linux")
            return nil
        #endif
    }

    /// Threat model, chatterd admin: a mistyped `--data-dir` is refused, and no empty database is made there.
    @Test func aMistypedDataDirectoryIsRefusedAndNothingIsMadeThere() async throws {
        try await withTemporaryDirectory { dir in
            let typo = dir + "/chatterd-dta"
            guard let outcome = try await Self.run(["admin", "users", "--data-dir", typo]) else { return }
            #expect(outcome.status != 0)
            #expect(String(decoding: outcome.error, as: UTF8.self).contains("there is no database at"))
            #expect(!FileManager.default.fileExists(atPath: typo))
        }
    }

    /// Threat model, chatterd admin: `delete` without `--yes` is refused and changes nothing; with it, the
    /// account goes.
    @Test func deletingNeedsYesAndWithoutItChangesNothing() async throws {
        try await Harness.run { h async throws in
            let session = try await h.nativeSignIn()
            let id = try #require(UUID(uuidString: session.user.id))
            // The harness's directory, so the notice mailed to the account goes to its outbox, not the working one's.
            let place = ["--data-dir", URL(fileURLWithPath: h.databasePath).deletingLastPathComponent().path, "--database", "sqlite:" + h.databasePath]
            guard let refused = try await Self.run(["admin", "delete", session.user.id] + place) else { return }
            #expect(refused.status != 0)
            #expect(String(decoding: refused.error, as: UTF8.self).contains("--yes"))
            #expect(try await h.store.user(id: id) != nil, "still there")
            let deleted = try #require(try await Self.run(["admin", "delete", session.user.id, "--yes"] + place))
            #expect(deleted.status == 0, "\(String(decoding: deleted.error, as: UTF8.self))")
            #expect(try await h.store.user(id: id) == nil)
        }
    }
}
