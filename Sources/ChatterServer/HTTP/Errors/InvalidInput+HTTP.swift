import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension InvalidInput: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .tooLong(let field, let limit): APIError(.badRequest, .fieldTooLong, "\"\(field)\" is longer than \(limit) characters.")
        case .namePartTooLong(let limit): APIError(.badRequest, .fieldTooLong, "Name parts are limited to \(limit) characters.")
        case .appleUserMismatch: APIError(.badRequest, .badRequest, "\"user\" is not the Apple ID the identity token is for.")
        }
    }
}
