import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

extension TimelineError: APIErrorConvertible {
    var apiError: APIError {
        switch self {
        case .anonymousPostingDisabled:
            APIError(
                .forbidden, .anonymousPostingDisabled,
                "Anonymous posting is off because it lets anyone post under any name. Sign in and use /postauth, or start chatterd with --allow-anonymous-posting (CHATTERD_ALLOW_ANONYMOUS_POSTING=1) to enable it."
            )
        case .emptyMessage: APIError(.badRequest, .emptyMessage, "Write something before posting.")
        case .invalidLimit: APIError(.badRequest, .invalidLimit, "\"limit\" must be between 1 and \(Timeline.maximumPage).")
        case .invalidCursor: APIError(.badRequest, .invalidCursor, "\"before\" must be a chatt id.")
        }
    }
}
