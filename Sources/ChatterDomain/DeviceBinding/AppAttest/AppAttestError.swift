import ChatterCore

/// Why an App Attest attestation was refused: `invalid_app_attest` at the edge, with `check` naming it.
public enum AppAttestError: Error, Equatable, Sendable {
    /// The attestation failed one of Apple's checks.
    case rejected(AppAttestCheck, String)
    /// The challenge is unknown, used or expired.
    case challenge
    /// The key was attested before: a key is attested once.
    case attested
    /// The server accepts no app's attestations (`--app-attest-app-id` is unset).
    case disabled

    /// The check `ErrorBody.check` names.
    public var check: String {
        switch self {
        case .rejected(let check, _): check.rawValue
        case .challenge: "challenge"
        case .attested: "attested"
        case .disabled: "disabled"
        }
    }
}
