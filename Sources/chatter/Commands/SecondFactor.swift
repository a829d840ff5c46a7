import ArgumentParser
import ChatterKit
import Foundation

/// `chatter mfa …`: two-step sign-in for the signed-in account.
struct SecondFactor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa", abstract: "Two-step sign-in: an authenticator app and recovery codes.",
        subcommands: [Status.self, Enable.self, Disable.self, RecoveryCodes.self], defaultSubcommand: Status.self)

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Whether two-step sign-in is on, and the recovery codes left.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await CommandContext.run(options) { context in
                let status = try await withSpinner("Asking…") { try await context.client.secondFactorStatus() }
                let text =
                    status.enabled
                    ? "Two-step sign-in is on; \(status.recoveryCodesLeft) recovery codes left."
                    : "Two-step sign-in is off." + (status.pending ? " An authenticator app waits for its first code (chatter mfa enable)." : "")
                context.output(
                    text, json: ["enabled": status.enabled, "pending": status.pending, "recoveryCodesLeft": status.recoveryCodesLeft])
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an authenticator app: shows its key, asks for its first code, prints the recovery codes.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await CommandContext.run(options) { context in
                let enrolment = try await withSpinner("Making a key…") { try await context.client.startAuthenticatorEnrolment() }
                let console = context.console
                console.writeError("Add this key to your authenticator app (time-based, 6 digits, 30 seconds):")
                console.writeError("  key: \(enrolment.secret)")
                console.writeError("  or open on the device with the app: \(enrolment.uri)")
                var codes: [String]?
                for attempt in 1...3 where codes == nil {
                    guard let code = Login.ask("Code the app shows: ") else { throw ChatterError.cancelled }
                    do {
                        codes = try await withSpinner("Checking the code…") { try await context.client.confirmAuthenticator(code: code) }
                    } catch ChatterError.server(401, let body) where attempt < 3 {
                        console.writeError(body?.message ?? "That code did not work; try again.")
                    }
                }
                guard let codes else { throw ChatterError.cancelled }
                SecondFactor.show(codes, context: context, heading: "Two-step sign-in is on.")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn two-step sign-in off (asks for a current code).")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await CommandContext.run(options) { context in
                guard let code = Login.ask("Code from your authenticator app (or a recovery code): ") else { throw ChatterError.cancelled }
                try await withSpinner("Turning it off…") { try await context.client.disableSecondFactor(code: code) }
                context.output("Two-step sign-in is off.", json: ["enabled": false])
            }
        }
    }

    struct RecoveryCodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-codes", abstract: "A new set of recovery codes; the old set stops working (asks for a current code).")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await CommandContext.run(options) { context in
                guard let code = Login.ask("Code from your authenticator app (or a recovery code): ") else { throw ChatterError.cancelled }
                let codes = try await withSpinner("Making new codes…") { try await context.client.regenerateRecoveryCodes(code: code) }
                SecondFactor.show(codes, context: context, heading: "New recovery codes; the old ones no longer work.")
            }
        }
    }

    static func show(_ codes: [String], context: CommandContext, heading: String) {
        let text = ([heading, "Recovery codes (each signs in once; keep them safe, they are not shown again):"] + codes.map { "  \($0)" })
            .joined(separator: "\n")
        context.output(text, json: ["recoveryCodes": codes])
    }
}

/// Actions that matter ask for a recent second factor on accounts that have one: the code, then the action again.
enum StepUp {
    static func asking<T: Sendable>(_ context: CommandContext, _ action: () async throws -> T) async throws -> T {
        do { return try await action() } catch let error as ChatterError where error.isStepUpRequired {
            context.console.writeError("This needs your second factor.")
            guard let code = Login.ask("Code from your authenticator app (or a recovery code): ") else { throw ChatterError.cancelled }
            try await withSpinner("Checking the code…") { try await context.client.stepUp(code: code) }
            return try await action()
        }
    }
}
