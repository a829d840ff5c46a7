import ArgumentParser
import ChatterKit
import Foundation

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in: with an emailed code (the default), a password, or a Google ID token.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Sign in with email and password instead of an emailed code.")
    var password = false
    @Option(help: "Sign in with a Google ID token obtained elsewhere (pasted).")
    var googleIdToken: String?
    @Option(help: "The OAuth client ID the Google token was issued to. [CHATTER_GOOGLE_CLIENT_ID, config \"googleClientID\"]")
    var clientId: String?
    @Option(help: "Your email (asked for when missing).")
    var email: String?

    func run() async throws {
        try await CommandContext.run(options) { context in
            let session = try await signIn(context)
            let email = session.user?.email.map { " (\($0))" } ?? ""
            context.output("Signed in as \(session.username)\(email).", json: sessionJSON(session))
        }
    }

    func signIn(_ context: CommandContext) async throws -> AuthSession {
        if let googleIdToken {
            guard let clientID = clientId ?? context.settings.googleClientID else {
                throw CLIError(code: "missing_client_id", message: "--google-id-token needs --client-id (or CHATTER_GOOGLE_CLIENT_ID)", exitCode: 64)
            }
            return try await Login.secondStep(context, email: nil) { try await Login.google(context, token: googleIdToken, clientID: clientID) }
        }
        return try await Login.interactive(context, email: email, password: password)
    }

    /// Runs a first sign-in step; when the account has a second factor, asks for the authenticator app's code
    /// (or a recovery code), three tries, and completes the sign-in with it.
    static func secondStep(_ context: CommandContext, email: String?, _ first: () async throws -> AuthSession) async throws -> AuthSession {
        let challenge: SecondFactorChallenge
        do { return try await first() } catch let error as ChatterError {
            guard let waiting = error.secondFactorChallenge else { throw error }
            challenge = waiting
        }
        context.console.writeError("This account has two-step sign-in.")
        for attempt in 1...3 {
            guard let code = ask("Code from your authenticator app (or a recovery code): ") else { throw ChatterError.cancelled }
            do {
                return try await withSpinner("Checking the code…") { try await context.client.completeSignIn(challenge, code: code, email: email) }
            } catch ChatterError.server(401, let body) where attempt < 3 && body?.code == .invalidSecondFactor {
                context.console.writeError(body?.message ?? "That code did not work; try again.")
            }
        }
        throw ChatterError.cancelled
    }

    /// The native Google sign-in; a course chatterd (no /v1) gets the token through /adduser instead.
    static func google(_ context: CommandContext, token: String, clientID: String) async throws -> AuthSession {
        try await withSpinner("Signing in…") {
            do {
                return try await context.client.signInWithGoogle(idToken: token, clientID: clientID)
            } catch ChatterError.server(404, _) {
                return try await context.client.addUser(clientID: clientID, idToken: token)
            }
        }
    }

    /// Email code (or password) at the prompt, then the second step when the account has one; used by `login`
    /// and by `post` when it must sign in first.
    static func interactive(_ context: CommandContext, email: String?, password: Bool) async throws -> AuthSession {
        guard let email = email ?? ask("Email: ") else { throw ChatterError.cancelled }
        // The second step comes after the first's retries: a refused second code is not an emailed code to ask again.
        return try await secondStep(context, email: email) { try await firstStep(context, email: email, password: password) }
    }

    static func firstStep(_ context: CommandContext, email: String, password: Bool) async throws -> AuthSession {
        let console = context.console
        if let problem = FormValidation.emailProblem(email) { throw CLIError(code: ErrorCode.invalidEmail.rawValue, message: problem, exitCode: 64) }
        if password {
            guard let secret = console.readLine("Password: ", true), !secret.isEmpty else { throw ChatterError.cancelled }
            return try await withSpinner("Signing in…") { try await context.client.signIn(email: email, password: secret) }
        }
        do {
            let sent = try await withSpinner("Sending a code…") { try await context.client.requestEmailCode(email: email) }
            console.writeError("A 6-digit code was sent to \(email); it is valid for \(sent.expiresIn / 60) minutes.")
        } catch ChatterError.rateLimited(let seconds, _) {
            // Too soon for another: the code sent moments ago is still in the mailbox (as `EmailCodeFlow` does).
            console.writeError("A code was sent to \(email) moments ago; enter it (a new one can be sent in \(seconds) s).")
        }
        for attempt in 1...3 {
            guard let code = ask("Code: ")?.filter(\.isNumber) else { throw ChatterError.cancelled }
            do {
                return try await withSpinner("Checking the code…") { try await context.client.verifyEmailCode(email: email, code: code) }
            } catch ChatterError.server(let status, let body) where status == 401 && attempt < 3 {
                console.writeError(body?.message ?? "That code did not work; try again.")
            }
        }
        throw ChatterError.cancelled
    }

    static func ask(_ prompt: String) -> String? {
        Console.current.readLine(prompt, false).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

func sessionJSON(_ session: AuthSession) -> [String: Any] {
    var object: [String: Any] = [
        "username": session.username, "kind": session.kind.rawValue,
        "accessExpiresAt": session.accessExpiresAt.timeIntervalSince1970,
    ]
    if let email = session.user?.email { object["email"] = email }
    if let id = session.user?.id { object["userID"] = id }
    if let sessionID = session.sessionID { object["sessionID"] = sessionID }
    if let end = session.refreshExpiresAt { object["sessionExpiresAt"] = end.timeIntervalSince1970 }
    return object
}
