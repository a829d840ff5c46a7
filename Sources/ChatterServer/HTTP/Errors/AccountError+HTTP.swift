import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension AccountError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .emptyName: APIError(.badRequest, .invalidForm, "Type the name to show with your chatts: it cannot be empty.")
        }
    }
}
