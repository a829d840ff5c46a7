import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension PasskeyError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .rejected(let rejected):
            APIError(.unauthorized, .passkeyRejected, "The passkey was not accepted: \(rejected.reason)", check: rejected.check.rawValue)
        case .invalidChallenge:
            APIError(.unauthorized, .passkeyChallengeInvalid, "This passkey request expired or was already used; start again.")
        case .unknownPasskey: APIError(.unauthorized, .unknownPasskey, "This passkey is not registered here; sign in another way.")
        case .exists: APIError(.conflict, .passkeyExists, "This passkey is registered already.")
        case .lastWayToSignIn:
            APIError(.conflict, .lastWayToSignIn, "This passkey is the account's last way to sign in; add another before removing it.")
        case .notFound: APIError(.notFound, .notFound, "The account has no such passkey.")
        case .invalidName: APIError(.badRequest, .fieldTooLong, "A passkey's name is 1 to \(PasskeyService.maximumNameLength) characters.")
        }
    }
}
