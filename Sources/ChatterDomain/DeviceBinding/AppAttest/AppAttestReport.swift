import ChatterCore

/// The checks of Apple's "Validating apps that connect to your server"
/// (https://developer.apple.com/documentation/devicecheck/validating-apps-that-connect-to-your-server),
/// one name each, as `chatterd check-app-attest` prints them and a refusal names them.
public enum AppAttestCheck: String, Sendable, CaseIterable {
    case format
    case chain
    case nonce
    case keyID = "key_id"
    case appID = "app_id"
    case counter
    case environment
    case credentialID = "credential_id"
    case signature
}

/// Every check an attestation or assertion went through, with PASS or FAIL and why; `verified` is set only
/// when all passed.
public struct AppAttestReport<Verified: Sendable>: Sendable {
    public struct Result: Sendable, Equatable {
        public var check: AppAttestCheck
        public var passed: Bool
        public var detail: String
    }

    public internal(set) var results: [Result] = []
    public internal(set) var verified: Verified?

    public var firstFailure: Result? { results.first { !$0.passed } }
    public var passed: Bool { verified != nil && firstFailure == nil }

    mutating func record(_ check: AppAttestCheck, _ passed: Bool, _ detail: String) {
        results.append(Result(check: check, passed: passed, detail: detail))
    }

    /// The report as `chatterd check-app-attest` prints it: one line per check, then the verdict.
    public var text: String {
        var lines = results.map { "\($0.passed ? "PASS" : "FAIL")  \($0.check.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) \($0.detail)" }
        lines.append(passed ? "accepted" : "refused")
        return lines.joined(separator: "\n")
    }
}
