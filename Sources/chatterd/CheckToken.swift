import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation

/// Diagnoses an ID token from the shell with the same verifier `/adduser` uses.
struct CheckToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-token",
        abstract: "Explain whether chatterd would accept a Google or Apple ID token, check by check.",
        discussion: "Prints the decoded header and claims (never the signature) and every check with its reason. Exits 0 only when every check passes.")

    @Argument(help: "The ID token, a file containing it, or - to read it from standard input.")
    var token: String
    @Option(help: "JWKS URL or file. [default: CHATTERD_GOOGLE_JWKS_URL / CHATTERD_APPLE_JWKS_URL, else the provider's]")
    var jwks: String?
    @Option(name: .customLong("client-id"), help: "An accepted client ID; repeatable. [default: CHATTERD_GOOGLE_CLIENT_IDS]")
    var clientIDs: [String] = []
    @Option(help: "Evaluate the token at this UNIX time instead of now.")
    var at: Double?
    @Option(help: "google or apple.")
    var provider = "google"
    @Option(help: "The raw nonce the app sent; the token's nonce is checked against it.")
    var nonce: String?

    func run() async throws {
        var config = ServerConfiguration()
        try config.apply(environment: ProcessInfo.processInfo.environment)
        guard provider == "google" || provider == "apple" else { throw ValidationError("--provider is google or apple") }
        let apple = provider == "apple"
        let audiences = clientIDs.isEmpty ? (apple ? config.appleClientIDs : config.googleClientIDs) : clientIDs
        let location = jwks ?? (apple ? config.appleJWKSURL : config.googleJWKSURL)
        let source: any JWKSSource =
            location.hasPrefix("http://") || location.hasPrefix("https://")
            ? HTTPJWKSSource(url: location) : FileJWKSSource(path: location)
        let instant = at.map { Date(timeIntervalSince1970: $0) } ?? Date()
        let clock: @Sendable () -> Date = { instant }
        let verifier = IDTokenVerifier(
            provider: apple ? .apple(clientIDs: audiences) : .google(clientIDs: audiences, nonce: config.googleNonce),
            keys: JWKSCache(source: source, algorithms: ["RS256"], now: clock), now: clock)

        let report = await verifier.inspect(try readToken(), nonce: nonce.map { .raw($0) } ?? .notChecked)
        print(report.text(keys: source.description, checkedAt: instant))
        if !report.passed { throw ExitCode.failure }
    }

    private func readToken() throws -> String {
        let text =
            token == "-"
            ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            : FileManager.default.fileExists(atPath: token) ? try String(contentsOfFile: token, encoding: .utf8) : token
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
