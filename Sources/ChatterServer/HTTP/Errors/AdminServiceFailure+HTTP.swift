import ChatterWire
import Hummingbird

extension AdminService.Failure: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .notAnOperator: APIError(.forbidden, .notAnOperator, "These pages are for the server's operators.")
        case .ownAccount: APIError(.conflict, .ownAccount, "Use your account page to change your own account.")
        case .noSuchAccount, .ambiguousEmail, .noSuchSession:
            APIError(.notFound, .notFound, description.prefix(1).uppercased() + description.dropFirst() + ".")
        }
    }
}
