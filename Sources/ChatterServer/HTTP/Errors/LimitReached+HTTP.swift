import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension LimitReached: APIErrorConvertible {
    var apiError: APIError {
        let message =
            switch limit {
            case .emailCode: "Wait \(retryAfter) seconds before asking for another code."
            case .passwordSignIn: "Too many failed sign-ins; try again later or sign in with an emailed code."
            case .passwordChange: "Too many wrong passwords; try again later or reset the password with an emailed code."
            case .webSession: "Too many sign-in links; try again in a few minutes."
            case .passkey: "Too many passkey requests from this network; try again in a few minutes."
            case .secondFactor: "Too many wrong codes for this account; try again later."
            }
        return APIError(.tooManyRequests, .rateLimited, message).with(.retryAfter, String(retryAfter))
    }
}
