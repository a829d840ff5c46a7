import ChatterCore
import X509

/// The checks a passkey ceremony goes through, in the order they are reported. The raw values are the
/// `check` field of a refused ceremony's 401 body, so clients and `chatterd check-passkey` name the same one.
public enum PasskeyCheck: String, Sendable, CaseIterable, Codable {
    case format = "malformed"
    case credential = "unknown_credential"
    case type = "wrong_type"
    case challenge = "challenge_mismatch"
    case origin = "wrong_origin"
    case crossOrigin = "cross_origin"
    case rpID = "wrong_rp_id"
    case userPresent = "user_not_present"
    case userVerified = "user_not_verified"
    case backupFlags = "bad_backup_flags"
    case algorithm = "unsupported_algorithm"
    case attestation = "bad_attestation"
    case trust = "untrusted_attestation"
    case signature = "bad_signature"
    case signCount = "counter_went_backwards"

    /// A neutral name for reports, where the check may have passed.
    public var name: String {
        switch self {
        case .format: "format"
        case .credential: "credential"
        case .type: "type"
        case .challenge: "challenge"
        case .origin: "origin"
        case .crossOrigin: "cross-origin"
        case .rpID: "rp-id"
        case .userPresent: "user-present"
        case .userVerified: "user-verified"
        case .backupFlags: "backup"
        case .algorithm: "algorithm"
        case .attestation: "attestation"
        case .trust: "trust"
        case .signature: "signature"
        case .signCount: "sign-count"
        }
    }
}

/// The attestation statement formats of WebAuthn §8 (IANA "WebAuthn Attestation Statement Format Identifiers").
public enum AttestationFormat: String, Sendable, CaseIterable, Codable {
    case none
    case packed
    case fidoU2F = "fido-u2f"
    case apple
    case tpm
    case androidKey = "android-key"
    case androidSafetyNet = "android-safetynet"
}

/// A passkey that passed registration: what is stored for it.
public struct VerifiedRegistration: Sendable {
    public var credentialID: [UInt8]
    public var publicKey: COSEKey
    public var signCount: UInt32
    public var aaguid: [UInt8]
    public var userVerified: Bool
    public var backupEligible: Bool
    public var backedUp: Bool
    public var format: AttestationFormat
    /// The attestation's trust path as verified, leaf first, ending in the anchor; empty for `none`, self
    /// attestation and chains that ended in no configured anchor.
    public var trustPath: [Certificate]
    public var transports: [String]
}

/// A passkey assertion that passed: the new counter and flags to store for the credential.
public struct VerifiedAssertion: Sendable {
    public var credentialID: [UInt8]
    public var signCount: UInt32
    public var userVerified: Bool
    public var backedUp: Bool
}

/// The full diagnosis of one ceremony. The server acts on `firstFailure` and the verified value;
/// `chatterd check-passkey` prints every line. Both come from the same `PasskeyVerifier`.
public struct PasskeyReport<Verified: Sendable>: Sendable {
    public enum Outcome: String, Sendable { case pass, fail, skipped }

    public struct Result: Sendable, Equatable {
        public var check: PasskeyCheck
        public var outcome: Outcome
        public var detail: String
    }

    public internal(set) var results: [Result] = []
    public internal(set) var verified: Verified?

    public var firstFailure: Result? { results.first { $0.outcome == .fail } }
    public var passed: Bool { verified != nil && firstFailure == nil }

    package mutating func record(_ check: PasskeyCheck, _ passed: Bool, _ detail: String) {
        results.append(Result(check: check, outcome: passed ? .pass : .fail, detail: detail))
    }

    package mutating func skip(_ check: PasskeyCheck, _ detail: String) {
        results.append(Result(check: check, outcome: .skipped, detail: detail))
    }

    /// The report as `chatterd check-passkey` prints it: one line per check, then the verdict.
    public var text: String {
        var lines = results.map { result in
            let mark =
                switch result.outcome {
                case .pass: "PASS"
                case .fail: "FAIL"
                case .skipped: "SKIP"
                }
            return "\(mark)  \(result.check.name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(result.detail)"
        }
        lines.append(passed ? "ceremony accepted" : "ceremony refused")
        return lines.joined(separator: "\n")
    }
}

/// A refused ceremony: the first failed check and why, as the 401 body names them.
public struct PasskeyRejected: Error, Sendable, Equatable {
    public var check: PasskeyCheck
    public var reason: String
}

extension PasskeyReport {
    /// The verified value, or the first failure as an error.
    public func get() throws(PasskeyRejected) -> Verified {
        if let verified, firstFailure == nil { return verified }
        let failure = firstFailure ?? Result(check: .format, outcome: .fail, detail: "the ceremony could not be checked")
        throw PasskeyRejected(check: failure.check, reason: failure.detail)
    }
}
