import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation
import Logging

/// `chatterd admin …`: accounts, sessions and the audit log, on the database `chatterd serve` would use.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find accounts, end sessions, disable, delete or grant operator rights, and read the audit log.",
        discussion: """
            Works on the database chatterd serve would open (--data-dir, --database or their variables), also while \
            it serves: a serving chatterd honours what is done here within a second. USER is an account's id or an \
            email one of its identities carries. Every change is recorded in the audit log with your login as its actor.
            """,
        subcommands: [
            AdminUsers.self, AdminShow.self, AdminEndSession.self, AdminEndSessions.self, AdminDisable.self, AdminEnable.self,
            AdminDelete.self, AdminGrant.self, AdminRevoke.self, AdminResetSecondFactor.self, AdminAudit.self,
        ])

    /// Taken here too, so `chatterd admin --data-dir d users` works as well as `chatterd admin users --data-dir d`.
    @OptionGroup var database: DatabaseOptions
}

/// What every admin command takes: `--json`, and the database settings as `chatterd serve` takes them.
struct AdminOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    /// Opens the configured database, runs `body` with the admin service, and closes it. An SQLite
    /// database must exist already: a typo in `--data-dir` should not make an empty one.
    func withAdmin<T: Sendable>(_ body: (AdminService) async throws -> T) async throws -> T {
        let location: DatabaseLocation
        let config: ServerConfiguration
        do {
            config = try database.configuration()
            location = try config.databaseLocation()
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("there is no database at \(path): give the --data-dir or --database chatterd serves with")
        }
        let logger = Logger(
            label: "chatterd.admin",
            factory: { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .warning
                return handler
            })
        let store = try await location.open(logger: logger)
        do {
            // Notices to an account's owner go out as `chatterd serve` sends mail (the outbox, or SMTP).
            let mail = try MailTransports.make(config.mail, dataDirectory: config.dataDirectory, logger: logger)
            return try await store.whileRunning(logger: logger) {
                try await body(AdminService(store: store, mail: mail, sender: config.mailFrom, logger: logger))
            }
        } catch let failure as AdminService.Failure {
            FileHandle.standardError.write(Data("chatterd admin: \(failure)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Runs `body` on the account `user` names (an id or an email), as the system login running the
    /// command (the audit log's actor); returns the account's id and what `body` returned.
    func act<T: Sendable>(on user: String, _ body: @Sendable (AdminService, UUID, AuditActor) async throws -> T) async throws -> (UUID, T) {
        let actor = AuditActor.commandLine(login: NSUserName())
        return try await withAdmin { admin in
            let id = try await admin.account(user).user.id
            return (id, try await body(admin, id, actor))
        }
    }

    func print<Value: Encodable>(_ value: Value, text: () -> String) throws {
        if json {
            Swift.print(String(decoding: try AdminJSON.encoder.encode(value), as: UTF8.self))
        } else {
            Swift.print(text())
        }
    }
}
