import ChatterCore

/// Why an App Attest attestation or assertion was refused: `invalid_app_attest` at the edge, with `check` naming it;
/// or why an account could not be created without one.
public enum AppAttestError: Error, Equatable, Sendable {
    /// The attestation failed one of Apple's checks.
    case rejected(AppAttestCheck, String)
    /// The challenge is unknown, used or expired.
    case challenge
    /// The key was attested before: a key is attested once.
    case attested
    /// The server accepts no app's attestations (`--app-attest-app-id` is unset).
    case disabled
    /// A new account needs an attested install of one of the apps the operator names (`--app-attest-sign-up`).
    case required

    /// The check `ErrorBody.check` names.
    public var check: String {
        switch self {
        case .rejected(let check, _): check.rawValue
        case .challenge: "challenge"
        case .attested: "attested"
        case .disabled: "disabled"
        case .required: "required"
        }
    }
}
