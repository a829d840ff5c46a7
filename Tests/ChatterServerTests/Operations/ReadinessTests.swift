import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `/ready`: the database answers with the schema this chatterd knows, and every configured provider's keys
/// are held; `/health` only says the process answers.
@Suite(.tags(.bothDatabases)) struct ReadinessTests {
    struct Unreachable: JWKSSource {
        var description: String { "https://keys.invalid/certs" }
        func fetch() async throws -> (json: [UInt8], maxAge: Double?) { throw JWKSFetchError(reason: "connection refused") }
    }

    func report(_ h: Harness) async throws -> (status: Int, body: Readiness.Report) {
        let response = try await h.get("/ready")
        return (Int(response.status.code), try h.decode(Readiness.Report.self, response))
    }

    @Test(arguments: StoreBackend.available)
    func readyWhenTheDatabaseAnswersAndTheKeysAreHeld(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let (status, body) = try await report(h)
            #expect(status == 200)
            #expect(body.status == "ready" && body.problems.isEmpty)
            #expect([body.database, body.migrations, body.googleKeys, body.appleKeys] == [.ok, .ok, .ok, .ok])
            #expect(try await h.get("/ready").headers[.cacheControl] == "no-store")
        }
    }

    @Test func keysThatCannotBeFetchedMakeItNotReadyAndSayWhose() async throws {
        try await Harness.run(appleKeys: Unreachable()) { h async throws in
            let (status, body) = try await report(h)
            #expect(status == 503)
            #expect(body.status == "not_ready" && body.appleKeys == .failed && body.googleKeys == .ok && body.database == .ok)
            #expect(body.problems == ["Apple's signing keys could not be fetched"])
            #expect(try await h.get("/health").status == .ok, "alive, only not ready")
        }
    }

    @Test func aProviderWithoutClientIDsNeedsNoKeys() async throws {
        try await Harness.run(appleKeys: Unreachable(), configure: { $0.appleClientIDs = [] }) { h async throws in
            let (status, body) = try await report(h)
            #expect(status == 200)
            #expect(body.appleKeys == .notNeeded)
        }
    }

    @Test func aDatabaseThatDoesNotAnswerIsNotReady() async throws {
        try await Harness.run { h async throws in
            try await h.store.close()
            let (status, body) = try await report(h)
            #expect(status == 503)
            #expect(body.database == .failed && body.migrations == .failed)
            #expect(body.problems == ["the database does not answer; the error is in chatterd's log"], "the check, not its internals")
            let text = String(buffer: try await h.get("/ready").body)
            #expect(!text.contains(h.databasePath) && !text.lowercased().contains("sqlite") && !text.contains("Error"), "\(text)")
        }
    }
}
