import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the terminal client reads and writes. Commands go through `Console.current`, so tests run them
/// in-process with scripted input and captured output.
struct Console: Sendable {
    var write: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    /// Shows `prompt` and reads a line; `secret` turns off echo. nil at end of input.
    var readLine: @Sendable (_ prompt: String, _ secret: Bool) -> String?
    var environment: [String: String]
    /// Whether a person is watching stderr: only then is a spinner drawn.
    var showsProgress: Bool
    /// Writes spinner frames as they are (no newline; they redraw one line).
    var writeProgress: @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    /// The clock the session's expiry and the DPoP proofs' dates follow: the system's, or a test server's.
    var now: @Sendable () -> Date = Date.init

    @TaskLocal static var current = Console.standard

    static let standard = Console(
        write: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        writeError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
        readLine: { prompt, secret in Terminal.read(prompt: prompt, secret: secret) },
        environment: ProcessInfo.processInfo.environment,
        showsProgress: isatty(STDERR_FILENO) == 1)
}

enum Terminal {
    static func read(prompt: String, secret: Bool) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        guard secret, isatty(STDIN_FILENO) == 1 else { return Swift.readLine() }
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return Swift.readLine()
    }
}

/// A spinner on stderr while `work` waits on the network; nothing at all when no one watches.
func withSpinner<T: Sendable>(_ message: String, _ work: () async throws -> T) async throws -> T {
    let console = Console.current
    guard console.showsProgress else { return try await work() }
    let spinner = Task {
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        var index = 0
        while !Task.isCancelled {
            console.writeProgress("\r\(frames[index % frames.count]) \(message)")
            index += 1
            try? await Task.sleep(for: .milliseconds(100))
        }
        // Erases the line, so the result prints where the spinner was.
        console.writeProgress("\r\u{1B}[K")
    }
    defer { spinner.cancel() }
    let result = try await work()
    spinner.cancel()
    _ = await spinner.result
    return result
}
