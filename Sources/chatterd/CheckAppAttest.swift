import ArgumentParser
import ChatterCore
import ChatterDomain
import Foundation

/// Diagnoses an App Attest attestation or assertion from the shell, with the verifier chatterd uses, taking
/// exactly what a server holds: every binary value base64, standard or url-safe.
struct CheckAppAttest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-app-attest",
        abstract: "Explain whether chatterd would accept an App Attest attestation or assertion, check by check.",
        discussion: """
            Prints every check of Apple's "Validating apps that connect to your server" with PASS or FAIL and its reason. \
            Exits 0 only when every check passes.
            """,
        subcommands: [Attestation.self, Assertion.self])

    struct ClientData: ParsableArguments {
        @Option(name: .customLong("client-data"), help: "The client data the app hashed (holding the server's challenge), base64.")
        var clientData: String?
        @Option(name: .customLong("client-data-hash"), help: "Or its SHA-256 (clientDataHash), base64.")
        var clientDataHash: String?
        @Option(name: .customLong("app-id"), help: "The app ID: TEAMID.bundle.identifier.")
        var appID: String

        func validate() throws {
            guard (clientData == nil) != (clientDataHash == nil) else { throw ValidationError("give one of --client-data and --client-data-hash") }
            let parts = appID.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw ValidationError("--app-id is TEAMID.bundle.identifier, with a 10-character team ID")
            }
        }

        func hash() throws -> [UInt8] {
            if let clientData { return AppAttestVerifier.clientDataHash(try bytes(clientData, "--client-data")) }
            return try bytes(clientDataHash ?? "", "--client-data-hash")
        }
    }

    static func bytes(_ text: String, _ name: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decodeAnySpelling(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ValidationError("\(name) is not base64")
        }
        return bytes
    }

    struct Attestation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check an attestation (DCAppAttestService.attestKey).")
        @Option(name: .customLong("key-id"), help: "The key ID the app generated, base64.")
        var keyID: String
        @Option(help: "The attestation object, base64.")
        var attestation: String
        @OptionGroup var client: ClientData
        @Flag(help: "Expect the development environment's AAGUID (an app signed for development).")
        var development = false
        @Option(help: "Check the certificates at this UNIX time instead of now.")
        var at: Double?

        func run() async throws {
            let instant = at.map { Date(timeIntervalSince1970: $0) } ?? Date()
            let report = await AppAttestVerifier(now: { instant }).inspectAttestation(
                try bytes(attestation, "--attestation"), keyID: try bytes(keyID, "--key-id"), clientDataHash: try client.hash(), appID: client.appID,
                environment: development ? .development : .production)
            print(report.text)
            if let key = report.verified {
                print("public key (X9.63, base64): \(Data(key.publicKey).base64EncodedString())")
                print("receipt: \(key.receipt.count) bytes")
            }
            if !report.passed { throw ExitCode.failure }
        }
    }

    struct Assertion: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check an assertion (DCAppAttestService.generateAssertion).")
        @Option(help: "The assertion, base64.")
        var assertion: String
        @OptionGroup var client: ClientData
        @Option(
            name: .customLong("public-key"),
            help: "The attested key: a PEM file, PEM text (as --public-key=\"$(cat key.pem)\"), or base64 of its X9.63 point or DER.")
        var publicKey: String
        @Option(name: .customLong("previous-counter"), help: "The highest counter the key has shown (0 after the attestation).")
        var previousCounter: UInt32 = 0

        func run() async throws {
            let report = AppAttestVerifier().inspectAssertion(
                try bytes(assertion, "--assertion"), clientDataHash: try client.hash(), publicKey: try key(), appID: client.appID,
                previousCounter: previousCounter)
            print(report.text)
            if let counter = report.verified { print("counter: \(counter) (keep it as the key's previous counter)") }
            if !report.passed { throw ExitCode.failure }
        }

        func key() throws -> [UInt8] {
            let text = FileManager.default.fileExists(atPath: publicKey) ? try String(contentsOfFile: publicKey, encoding: .utf8) : publicKey
            guard let point = AppAttestVerifier.publicKeyPoint(text) else {
                throw ValidationError("--public-key is not a P-256 public key (PEM, or base64 of DER or X9.63)")
            }
            return point
        }
    }
}
