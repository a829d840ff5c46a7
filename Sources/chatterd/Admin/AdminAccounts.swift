import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation

struct AdminUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "List accounts, newest first, or those whose name, id or email contains --search.")

    @Option(help: "Text to look for in names, ids and emails (every account when left out).")
    var search: String?

    @Option(help: "At most this many accounts.")
    var limit = 50

    @OptionGroup var options: AdminOptions

    func run() async throws {
        let found = try await options.withAdmin { admin in try await admin.find(search, limit: limit) }
        try options.print(found.map(AdminJSON.Account.init)) {
            found.isEmpty ? "no accounts" : found.map(AdminText.account).joined(separator: "\n")
        }
    }
}

struct AdminShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show an account: its identities and sessions.")

    @Argument(help: "The account's id or email.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws {
        let (_, details) = try await options.act(on: user) { admin, id, _ in try await admin.details(of: id) }
        try options.print(AdminJSON.Details(details)) { AdminText.details(details) }
    }
}

struct AdminEndSession: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "end-session", abstract: "End one of an account's sessions.")

    @Argument(help: "The account's id or email.") var user: String
    @Argument(help: "The session's id (see `chatterd admin show`).") var session: String
    @OptionGroup var options: AdminOptions

    func validate() throws {
        guard UUID(uuidString: session) != nil else { throw ValidationError("\(session) is not a session id") }
    }

    func run() async throws {
        let sessionID = UUID(uuidString: session)!
        let (id, _) = try await options.act(on: user) { admin, id, actor in try await admin.endSession(sessionID, of: id, by: actor) }
        try options.print(AdminJSON.Done(action: "end-session", userID: id.uuidString, sessionsEnded: 1)) { "ended session \(sessionID.uuidString)" }
    }
}

struct AdminEndSessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "end-sessions", abstract: "End every session of an account.")

    @Argument(help: "The account's id or email.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws {
        let (id, ended) = try await options.act(on: user) { admin, id, actor in try await admin.endSessions(of: id, by: actor) }
        try options.print(AdminJSON.Done(action: "end-sessions", userID: id.uuidString, sessionsEnded: ended)) {
            "ended " + AdminService.sessions(ended)
        }
    }
}

struct AdminDisable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Disable an account: its sessions end and it cannot sign in until enabled.")

    @Argument(help: "The account's id or email.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws {
        let (id, ended) = try await options.act(on: user) { admin, id, actor in try await admin.setDisabled(true, userID: id, by: actor) }
        try options.print(AdminJSON.Done(action: "disable", userID: id.uuidString, sessionsEnded: ended)) {
            "disabled \(id.uuidString); ended " + AdminService.sessions(ended)
        }
    }
}

struct AdminEnable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Let a disabled account sign in again.")

    @Argument(help: "The account's id or email.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws {
        let (id, _) = try await options.act(on: user) { admin, id, actor in try await admin.setDisabled(false, userID: id, by: actor) }
        try options.print(AdminJSON.Done(action: "enable", userID: id.uuidString)) { "enabled \(id.uuidString)" }
    }
}

struct AdminDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete an account with its identities, password, sessions and chatts.")

    @Argument(help: "The account's id or email.") var user: String
    @Flag(help: "Confirm: deleting cannot be undone.") var yes = false
    @OptionGroup var options: AdminOptions

    func validate() throws {
        guard yes else { throw ValidationError("deleting an account cannot be undone: add --yes to confirm") }
    }

    func run() async throws {
        let (id, _) = try await options.act(on: user) { admin, id, actor in try await admin.delete(userID: id, by: actor) }
        try options.print(AdminJSON.Done(action: "delete", userID: id.uuidString)) { "deleted \(id.uuidString)" }
    }
}

/// `grant` and `revoke`: operator rights, for the admin pages.
struct AdminGrant: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant", abstract: "Make an account an operator: it may use the admin pages (/admin).")

    @Argument(help: "The account's email or id.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws { try await setOperator(true, user, options) }
}

struct AdminRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Take an account's operator rights away.")

    @Argument(help: "The account's email or id.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws { try await setOperator(false, user, options) }
}

struct AdminResetSecondFactor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-second-factor",
        abstract: "Remove an account's authenticator app and recovery codes, for an owner who lost both (mailed to the account).")

    @Argument(help: "The account's email or id.") var user: String
    @OptionGroup var options: AdminOptions

    func run() async throws {
        let (id, _) = try await options.act(on: user) { admin, id, actor in try await admin.resetSecondFactor(userID: id, by: actor) }
        try options.print(AdminJSON.Done(action: "reset-second-factor", userID: id.uuidString)) {
            "\(id.uuidString) has no second factor now; its owner was told by mail"
        }
    }
}

private func setOperator(_ isAdmin: Bool, _ user: String, _ options: AdminOptions) async throws {
    let (id, _) = try await options.act(on: user) { admin, id, actor in try await admin.setAdmin(isAdmin, userID: id, by: actor) }
    try options.print(AdminJSON.Done(action: isAdmin ? "grant" : "revoke", userID: id.uuidString)) {
        "\(id.uuidString) may \(isAdmin ? "now" : "no longer") use /admin"
    }
}
