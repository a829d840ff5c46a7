import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension AccountError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .emptyName: APIError(.badRequest, .invalidForm, "Type the name to show with your chatts: it cannot be empty.")
        case .sameEmail: APIError(.badRequest, .invalidEmail, "That is the address your account has already. Type the new one.")
        case .emailTaken:
            APIError(
                .conflict, .invalidEmail,
                "That address signs in to another Chatter account. Sign in with it and delete that account first, or use another address.")
        }
    }
}
