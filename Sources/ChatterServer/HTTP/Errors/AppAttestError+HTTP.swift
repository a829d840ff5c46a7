import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension AppAttestError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .rejected(_, let reason):
            APIError(.badRequest, .invalidAppAttest, "The App Attest attestation was refused: \(reason).", check: check)
        case .challenge:
            APIError(.badRequest, .invalidAppAttest, "This App Attest challenge expired or was already used; ask for another.", check: check)
        case .attested:
            APIError(.conflict, .invalidAppAttest, "This App Attest key was attested before; a key is attested once.", check: check)
        case .disabled:
            APIError(.notFound, .notFound, "This server accepts no app's App Attest attestations.")
        case .required:
            APIError(.forbidden, .appAttestRequired, "New accounts are created in the app. Sign up there, or sign in to an account you have.")
        }
    }
}
