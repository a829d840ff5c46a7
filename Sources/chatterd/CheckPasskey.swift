import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import ChatterWire
import Foundation
import X509

/// Diagnoses a passkey ceremony from the shell with the verifier the passkey routes use.
struct CheckPasskey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-passkey",
        abstract: "Explain whether chatterd would accept a passkey registration or sign-in, check by check.",
        discussion: """
            RESPONSE.json is what `PublicKeyCredential.toJSON()` gives in a browser (or what an app sends). Prints every \
            check with PASS, FAIL or SKIP and its reason, and for a registration the attestation's format and trust path. \
            Exits 0 only when every check passes.
            """,
        subcommands: [Registration.self, Authentication.self])

    struct Ceremony: ParsableArguments {
        @Argument(help: "The response JSON file, or - for standard input.")
        var response: String
        @Option(help: "The challenge the server issued, base64url.")
        var challenge: String
        @Option(help: "An allowed origin (https://example.org, or android:apk-key-hash:…); repeatable.")
        var origin: [String]
        @Option(name: .customLong("rp-id"), help: "The relying party ID, e.g. example.org.")
        var rpID: String
        @Option(name: .customLong("user-verification"), help: "required, preferred or discouraged.")
        var userVerification: UserVerification = .preferred
        @Option(help: "Check at this UNIX time instead of now (certificate validity, SafetyNet's timestamp).")
        var at: Double?

        func read<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
            let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
            do { return try JSONDecoder().decode(type, from: data) } catch { throw ValidationError("\(path) is not a \(type) JSON object: \(error)") }
        }

        func challengeBytes() throws -> [UInt8] {
            guard let bytes = Base64URL.decode(challenge) else { throw ValidationError("--challenge is not base64url") }
            return bytes
        }

        func verifier(anchors: [Certificate] = [], requireTrust: Bool = false) -> PasskeyVerifier {
            let instant = at.map { Date(timeIntervalSince1970: $0) } ?? Date()
            return PasskeyVerifier(
                party: RelyingParty(id: rpID, origins: origin, trustAnchors: anchors, requiresTrustedAttestation: requireTrust), now: { instant })
        }
    }

    struct Registration: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a registration (navigator.credentials.create()).")
        @OptionGroup var ceremony: Ceremony
        @Option(
            name: .customLong("trust-anchor"),
            help: "A PEM file of root certificates attestation chains may end in; repeatable. Apple's WebAuthn root is built in.")
        var trustAnchors: [String] = []
        @Flag(name: .customLong("require-trusted-attestation"), help: "Fail when the attestation chain ends in no anchor.")
        var requireTrust = false

        func run() async throws {
            let anchors = try trustAnchors.flatMap { path in
                do { return try TrustAnchors.certificates(pem: String(contentsOfFile: path, encoding: .utf8)) } catch {
                    throw ValidationError("\(path): \(error)")
                }
            }
            let response = try ceremony.read(RegistrationResponseJSON.self, from: ceremony.response)
            let report = await ceremony.verifier(anchors: anchors, requireTrust: requireTrust)
                .inspectRegistration(response, challenge: try ceremony.challengeBytes(), userVerification: ceremony.userVerification)
            print(report.text)
            if let verified = report.verified {
                let path = verified.trustPath.map(AttestationStatement.name).joined(separator: " → ")
                print("format: \(verified.format.rawValue); trust path: \(path.isEmpty ? "none (not verified)" : path)")
                print("public key (COSE, base64url): \(Base64URL.encode(verified.publicKey.encoded))")
            }
            if !report.passed { throw ExitCode.failure }
        }
    }

    struct Authentication: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a sign-in (navigator.credentials.get()).")
        @OptionGroup var ceremony: Ceremony
        @Option(name: .customLong("public-key"), help: "The credential's COSE public key, base64url (as check-passkey registration prints it).")
        var publicKey: String?
        @Option(help: "The credential's registration response JSON, to take the key from.")
        var registration: String?
        @Option(name: .customLong("sign-count"), help: "The counter stored for the credential.")
        var signCount: UInt32 = 0
        @Flag(name: .customLong("backup-eligible"), help: "With --public-key: the credential was registered as backup eligible (flag BE).")
        var backupEligible = false

        func validate() throws {
            guard (publicKey == nil) != (registration == nil) else { throw ValidationError("give exactly one of --public-key and --registration") }
        }

        func run() async throws {
            let response = try ceremony.read(AuthenticationResponseJSON.self, from: ceremony.response)
            var credential: PasskeyVerifier.Credential
            if let registration {
                credential = try PasskeyVerifier.credential(in: ceremony.read(RegistrationResponseJSON.self, from: registration))
            } else {
                guard let bytes = publicKey.flatMap(Base64URL.decode) else { throw ValidationError("--public-key is not base64url") }
                let key: COSEKey
                do { key = try COSEKey(encoded: bytes) } catch { throw ValidationError("--public-key: \(error)") }
                credential = PasskeyVerifier.Credential(
                    id: Base64URL.decode(response.rawId) ?? [], publicKey: key, signCount: 0, backupEligible: backupEligible, userHandle: nil)
            }
            credential.signCount = signCount
            let report = ceremony.verifier().inspectAuthentication(
                response, challenge: try ceremony.challengeBytes(), userVerification: ceremony.userVerification, credential: credential)
            print(report.text)
            if !report.passed { throw ExitCode.failure }
        }
    }
}

extension UserVerification: ExpressibleByArgument {}
