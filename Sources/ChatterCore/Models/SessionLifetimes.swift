/// How long tokens and sessions live: `SessionService` issues by it and the stores purge by it.
public struct SessionLifetimes: Sendable {
    /// Access tokens of native sessions: short, because they are bearer secrets sent with every request.
    public var access: Double = 15 * 60
    /// A native session ends when it is not refreshed for this long.
    public var idle: Double = 30 * 24 * 3600
    /// And in any case this long after sign-in.
    public var absolute: Double = 90 * 24 * 3600
    /// A retired refresh token replays its rotation's answer for this long (a client retrying a lost response).
    public var grace: Double = 10
    /// Course API chatterIDs cannot be refreshed, so they live longer.
    public var course: Double = 24 * 3600

    public init() {}
}
