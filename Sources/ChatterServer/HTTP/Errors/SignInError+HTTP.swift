import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension SignInError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .invalidEmail: APIError(.badRequest, .invalidEmail, "\"email\" is not an email address.")
        case .invalidCode: APIError(.unauthorized, .invalidCode, "That code is wrong, expired or used up. Ask for a new one if needed.")
        case .wrongCredentials: APIError(.unauthorized, .invalidCredentials, "The email or password is not right.")
        case .weakPassword(let problem): APIError(.badRequest, .weakPassword, problem)
        case .wrongCurrentPassword: APIError(.forbidden, .wrongPassword, "The current password is not right.")
        case .passwordExists: APIError(.conflict, .passwordExists, "This account has a password already: change it with the current one.")
        case .busy: APIError(.serviceUnavailable, .busy, "Too many sign-ins at once; try again in a moment.").with(.retryAfter, "1")
        case .tokenRejected(let rejected, let provider): rejected.apiError(provider: provider)
        case .unreadableNotification: APIError.unprocessable("The notification has no readable \"events\" claim.")
        }
    }
}
