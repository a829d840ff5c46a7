import ArgumentParser
import ChatterKit
import Foundation
import NIOSSL

/// One run of a command: the client for the configured server and store, and the shared way to print
/// results and errors.
struct CommandContext: Sendable {
    let settings: Settings
    let client: ChatterClient
    let transport: any CLITransport
    var console: Console { Console.current }

    /// Builds the context, runs `body`, shuts the HTTP client down, and turns failures into one line on
    /// stderr (or a JSON error) and the documented exit code.
    static func run(_ options: GlobalOptions, _ body: (CommandContext) async throws -> Void) async throws {
        let console = Console.current
        let settings = try Settings.resolve(options, environment: console.environment)
        var context: CommandContext?
        do {
            context = try await make(settings)
            try await body(context!)
            await context?.transport.shutdown()
        } catch {
            await context?.transport.shutdown()
            let failure = Failure(error)
            if settings.json {
                console.write(jsonText(["error": failure.code, "message": failure.message]))
            } else {
                console.writeError("chatter: \(failure.message)")
            }
            throw ExitCode(failure.exitCode)
        }
    }

    static func make(_ settings: Settings) async throws -> CommandContext {
        let transport: any CLITransport
        if let pin = settings.pin, settings.server.scheme == "https" {
            // Checked once up front for a clear refusal, then again on every connection.
            try await withSpinner("Checking the server's certificate…") {
                try await PinCheck.verify(host: settings.server.host!, port: settings.server.port ?? 443, expected: pin)
            }
            transport = try PinnedTransport(pin: pin)
        } else {
            transport = try AHCTransport(certificatePath: settings.certificate)
        }
        let store = await makeStore(settings)
        let api = ChatterAPI(baseURL: settings.server, transport: transport, userAgent: "chatter/\(ChatterKit.version) (terminal)")
        // Several `chatter` commands may run at once (scripts, two terminals): they take turns refreshing.
        // The lock holds no secret, so it lives apart from the session files (a keyring user has none).
        let coordinator = FileLockCoordinator(path: settings.home + "/locks/" + settings.serverKey + ".lock")
        // Sessions are bound to this machine's key (DPoP): a token copied off it is worthless elsewhere.
        let client = ChatterClient(
            api: api, store: store, coordinator: coordinator, deviceKeys: SoftwareDPoPKeys(), now: Console.current.now)
        return CommandContext(settings: settings, client: client, transport: transport)
    }

    static func makeStore(_ settings: Settings) async -> any SecretStore {
        let service = "chatter:\(settings.serverKey)"
        let directory = settings.home + "/sessions/" + settings.serverKey
        switch settings.store {
        case "file":
            return FileStore(directory: directory)
        default:
            #if canImport(Security)
                // A command-line tool has no entitlement for the data-protection keychain: the login keychain.
                return KeychainStore(service: service, dataProtectionKeychain: false)
            #elseif os(Linux)
                if settings.store == "keyring" { return SecretServiceStore(service: service) }
                let console = Console.current
                return await DefaultStore.make(
                    service: service, fallbackDirectory: directory, warnedMarker: settings.home + "/keyring-fallback-warned",
                    warn: { console.writeError($0) })
            #else
                return FileStore(directory: directory)
            #endif
        }
    }

    /// Prints `text`, or `object` as JSON with --json.
    func output(_ text: String, json object: [String: Any]) {
        console.write(settings.json ? jsonText(object) : text)
    }
}

func jsonText(_ object: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
}

/// An error as the user sees it: one line, a stable code, and an exit status.
struct Failure {
    var code: String
    var message: String
    var exitCode: Int32

    /// Exit codes (README, "Use it from a terminal"): 1 the server refused, 3 sign-in needed, 4 the
    /// server cannot be reached safely, 5 secure storage unavailable. Usage errors are 64.
    init(_ error: any Error) {
        switch error {
        case let error as ChatterError:
            message = error.message
            switch error {
            case .notSignedIn:
                (code, exitCode) = ("not_signed_in", 3)
                message = "Not signed in: run `chatter login` first."
            case .signedOut: (code, exitCode) = ("signed_out", 3)
            case .cancelled: (code, exitCode) = ("cancelled", 3)
            case .network: (code, exitCode) = ("network", 4)
            case .storage: (code, exitCode) = ("storage_unavailable", 5)
            case .server(let status, let body): (code, exitCode) = (body?.error ?? "http_\(status)", 1)
            case .rateLimited(_, let body): (code, exitCode) = (body?.error ?? ErrorCode.rateLimited.rawValue, 1)
            case .unreadableResponse: (code, exitCode) = ("unreadable_response", 1)
            case .otherAccount: (code, exitCode) = ("other_account", 1)
            }
        case let error as PinCheck.Mismatch:
            (code, message, exitCode) = ("pin_mismatch", "refusing to connect: \(error.description)", 4)
        case let error as CLIError:
            (code, message, exitCode) = (error.code, error.message, error.exitCode)
        default:
            (code, message, exitCode) = ("network", "cannot reach the server: \(error)", 4)
        }
    }
}

struct CLIError: Error {
    var code: String
    var message: String
    var exitCode: Int32 = 1
}
