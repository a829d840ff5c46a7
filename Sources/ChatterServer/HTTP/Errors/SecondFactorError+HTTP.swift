import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension SecondFactorError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .required(let challenge):
            var error = APIError(
                .forbidden, .secondFactorRequired,
                challenge == nil
                    ? "This account has a second factor: sign in with the app or the web pages."
                    : "Enter the code from your authenticator app, or a recovery code.")
            error.secondFactor = challenge.map { SecondFactorChallenge(token: $0.token, expiresIn: $0.expiresIn) }
            return error
        case .invalidCode:
            return APIError(
                .unauthorized, .invalidSecondFactor, "That code is not right. Type the code your authenticator app shows now, or a recovery code.")
        case .codeUsed:
            return APIError(
                .unauthorized, .invalidSecondFactor,
                "That code was used already, and each code works once. Wait for your app to show the next one (they change every 30 seconds).")
        case .stepExpired: return APIError(.unauthorized, .secondStepExpired, "This sign-in has expired or was completed; sign in again.")
        case .alreadyEnabled: return APIError(.conflict, .secondFactorExists, "An authenticator app is already on; turn it off first to add another.")
        case .stepUpRequired:
            return APIError(
                .forbidden, .stepUpRequired,
                "Confirm it is you: enter the code from your authenticator app (or a recovery code), then try again.")
        case .signInAgain:
            return APIError(
                .forbidden, .signInAgain,
                "Confirm it is you first: changing how this account signs in takes a sign-in (or, on the account page, one of your passkeys) within the last ten minutes."
            )
        case .notEnabled: return APIError(.conflict, .noSecondFactor, "This account has no second factor (or no enrolment waiting for its first code).")
        }
    }
}
