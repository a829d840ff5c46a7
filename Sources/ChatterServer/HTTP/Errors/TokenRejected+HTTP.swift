import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension TokenRejected {
    /// A refused ID token as the client sees it: 401 naming the failed check (and, for a wrong audience,
    /// the audience the token carried), or 503 when the provider's keys could not be fetched at all.
    func apiError(provider: String) -> APIError {
        if keysUnavailable {
            return APIError(.serviceUnavailable, .keysUnavailable, "\(provider)'s signing keys could not be fetched; try again shortly.")
        }
        return APIError(
            .unauthorized, .invalidToken, "The ID token was rejected: \(reason)",
            check: check.rawValue, audience: check == .audience ? audience : nil)
    }
}
