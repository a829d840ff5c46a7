import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import Hummingbird
import Logging

/// `GET /ready`: whether this instance can serve sign-ins, for a load balancer or an orchestrator. Unlike
/// `/health` (the process answers), it asks the database, compares its schema with this chatterd's, and
/// makes sure each configured provider's keys are held. 200 when every check passes, 503 naming the
/// failed ones otherwise.
struct Readiness: Sendable {
    /// One check's outcome, as the answer shows it.
    enum Outcome: String, Codable, Sendable {
        case ok
        case failed
        /// The provider has no client IDs configured, so its keys are never needed.
        case notNeeded = "not_needed"
    }

    struct Report: Codable, Sendable {
        var status: String
        var database: Outcome
        var migrations: Outcome
        var googleKeys: Outcome
        var appleKeys: Outcome
        /// Why a check failed, for the operator; never a secret.
        var problems: [String]

        var isReady: Bool { status == "ready" }
    }

    let store: any ChatterStore
    let google: IDTokenVerifier
    let apple: IDTokenVerifier

    /// `logger` gets what went wrong in detail; the answer, which anyone may read, names the check alone.
    func check(logger: Logger? = nil) async -> Report {
        var problems: [String] = []
        var database = Outcome.ok
        var migrations = Outcome.ok
        do {
            let version = try await store.schemaVersion()
            if version.applied != version.known {
                migrations = .failed
                problems.append("the database has schema version \(version.applied); this chatterd expects \(version.known)")
            }
        } catch {
            database = .failed
            migrations = .failed
            problems.append("the database does not answer; the error is in chatterd's log")
            logger?.error("readiness: the database does not answer", metadata: ["error": "\(error)"])
        }
        let googleKeys = await Self.keys(of: google, problems: &problems)
        let appleKeys = await Self.keys(of: apple, problems: &problems)
        let ready = [database, migrations, googleKeys, appleKeys].allSatisfy { $0 != .failed }
        return Report(
            status: ready ? "ready" : "not_ready", database: database, migrations: migrations, googleKeys: googleKeys,
            appleKeys: appleKeys, problems: problems)
    }

    static func keys(of verifier: IDTokenVerifier, problems: inout [String]) async -> Outcome {
        guard !verifier.provider.audiences.isEmpty else { return .notNeeded }
        guard await verifier.keys.hasKeys() else {
            problems.append("\(verifier.provider.name)'s signing keys could not be fetched")
            return .failed
        }
        return .ok
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("ready") { _, context in
            let report = await check(logger: context.logger)
            return JSONResponse.make(report, status: report.isReady ? .ok : .serviceUnavailable)
        }
    }
}
