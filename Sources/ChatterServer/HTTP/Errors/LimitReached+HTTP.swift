import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension LimitReached: APIErrorConvertible {
    var apiError: APIError {
        let message =
            switch limit {
            case .emailCode: "Too many codes were asked for this address or network; try again in \(Self.minutes(retryAfter)), or sign in another way."
            case .emailCodeResend: "A code went to this address moments ago; wait \(retryAfter) seconds before asking for another."
            case .passwordSignIn: "Too many failed sign-ins; try again later or sign in with an emailed code."
            case .passwordChange: "Too many wrong passwords; try again later or reset the password with an emailed code."
            case .webSession: "Too many sign-in links; try again in a few minutes."
            case .passkey: "Too many passkey requests from this network; try again in a few minutes."
            case .appAttest: "Too many App Attest challenges from this network; try again in a few minutes."
            case .secondFactor: "Too many wrong codes for this account; try again later."
            }
        return APIError(.tooManyRequests, .rateLimited, message).with(.retryAfter, String(retryAfter))
    }

    /// "an hour", "5 minutes": a wait people read, not a count of seconds.
    static func minutes(_ seconds: Int) -> String {
        let minutes = (seconds + 59) / 60
        return minutes >= 60 && minutes % 60 == 0 ? (minutes == 60 ? "an hour" : "\(minutes / 60) hours") : (minutes == 1 ? "a minute" : "\(minutes) minutes")
    }
}
