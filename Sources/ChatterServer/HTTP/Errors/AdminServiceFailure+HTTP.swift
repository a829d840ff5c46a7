import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension AdminService.Failure: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .notAnOperator: APIError(.forbidden, .notAnOperator, "These pages are for the server's operators.")
        case .ownAccount: APIError(.conflict, .ownAccount, "Use your account page to change your own account.")
        case .operatorWithoutSecondFactor:
            APIError(.forbidden, .secondFactorRequired, "Operators need two-step sign-in: turn it on from your account page (/account) first.")
        case .noSecondFactor: APIError(.conflict, .noSecondFactor, description.prefix(1).uppercased() + description.dropFirst() + ".")
        case .noSuchAccount, .ambiguousEmail, .noSuchSession:
            APIError(.notFound, .notFound, description.prefix(1).uppercased() + description.dropFirst() + ".")
        }
    }
}
