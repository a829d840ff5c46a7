import ArgumentParser
import Foundation
import Synchronization

@testable import chatter

/// Runs the terminal client's commands in this process, with scripted answers to its prompts and its
/// output captured, as a person at a shell would see them.
struct CLIResult {
    var exitCode: Int32
    var output: [String]
    var errors: [String]
    var prompts: [String]

    var text: String { output.joined(separator: "\n") }
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
}

struct CLI: Sendable {
    var environment: [String: String]
    /// The server's clock: the proofs the client signs are dated by it.
    var clock: @Sendable () -> Date

    /// A client whose state lives in `home`, talking to `server` and keeping its session in files.
    init(server: LiveServer, home: String, extra: [String: String] = [:]) {
        clock = server.clock.function
        environment = ["CHATTER_HOME": home, "CHATTER_SERVER": server.baseURL.absoluteString, "CHATTER_STORE": "file", "HOME": home]
        environment.merge(extra) { $1 }
    }

    func run(_ arguments: [String], answer: @escaping @Sendable (_ prompt: String) -> String? = { _ in nil }) async -> CLIResult {
        await run(arguments, answerSeeing: { prompt, _ in answer(prompt) })
    }

    /// The same, with each answer given what the command has written to stderr so far (a key it showed).
    func run(_ arguments: [String], answerSeeing answer: @escaping @Sendable (_ prompt: String, _ errors: [String]) -> String?) async -> CLIResult {
        let output = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let prompts = Mutex<[String]>([])
        let console = Console(
            write: { line in output.withLock { $0.append(line) } },
            writeError: { line in errors.withLock { $0.append(line) } },
            readLine: { prompt, _ in
                prompts.withLock { $0.append(prompt) }
                return answer(prompt, errors.withLock { $0 })
            },
            environment: environment, showsProgress: false, now: clock)
        let code: Int32 = await Console.$current.withValue(console) {
            do {
                var command = try Chatter.parseAsRoot(arguments)
                if var command = command as? any AsyncParsableCommand {
                    try await command.run()
                } else {
                    try command.run()
                }
                return 0
            } catch {
                let code = Chatter.exitCode(for: error).rawValue
                if !(error is ExitCode) { errors.withLock { $0.append(Chatter.message(for: error)) } }
                return code
            }
        }
        return CLIResult(
            exitCode: code, output: output.withLock { $0 }, errors: errors.withLock { $0 }, prompts: prompts.withLock { $0 })
    }
}

/// Answers "Email:" with `email` and "Code:" with the code the server just sent to it.
func emailCodeAnswers(_ email: String, server: LiveServer) -> @Sendable (String) -> String? {
    { prompt in
        if prompt.hasPrefix("Email") { return email }
        if prompt.hasPrefix("Code") { return server.mail.lastCode(to: email) }
        return nil
    }
}
