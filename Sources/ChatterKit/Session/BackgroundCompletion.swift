import Foundation

/// Lets a refresh and its save finish when the app goes to the background halfway: iOS suspends an app a few
/// seconds after it leaves the foreground, and a rotated pair received but not yet stored would be lost (the
/// next launch would present the retired refresh token). The app group's lock is not held across the request
/// (`RefreshLease`), so an activity that expires leaves no lock held by a suspended app (0xdead10cc). On Apple platforms the work runs inside
/// `ProcessInfo.performExpiringActivity`, which apps and extensions alike may use; elsewhere it simply runs.
enum BackgroundCompletion {
    static func run<T: Sendable>(_ name: String, _ body: @Sendable () async throws -> T) async throws -> T {
        #if canImport(Security)
            let finished = DispatchSemaphore(value: 0)
            ProcessInfo.processInfo.performExpiringActivity(withReason: name) { expired in
                // The activity lasts as long as this block: hold it until the work is done. Called again with
                // `expired` when time is up; the work then carries on as far as the system lets it.
                if !expired { finished.wait() }
            }
            defer { finished.signal() }
        #endif
        return try await body()
    }
}
