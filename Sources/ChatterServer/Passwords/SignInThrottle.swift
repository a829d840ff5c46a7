import Foundation

/// Slows password guessing per account and per IP (SPEC §3). An account is paused only for the rest of a
/// 15-minute window after 10 failures, so an attacker cannot lock its owner out for long — and the
/// emailed-code sign-in stays open throughout.
public struct SignInThrottle: Sendable {
    public var window: Double = 15 * 60
    public var failuresPerAccount = 10
    public var failuresPerIP = 100

    let store: any ChatterStore
    let now: @Sendable () -> Date

    /// Seconds to wait before another attempt is allowed, or nil to go ahead.
    public func delay(email: String, ip: String?) async throws -> Int? {
        let instant = now()
        if try await store.count("pw:acct:\(email)", window: window, at: instant) >= failuresPerAccount { return Int(window) }
        if let ip, try await store.count("pw:ip:\(ip)", window: window, at: instant) >= failuresPerIP { return Int(window) }
        return nil
    }

    public func failed(email: String, ip: String?) async throws {
        let instant = now()
        _ = try await store.hit("pw:acct:\(email)", window: window, at: instant)
        if let ip { _ = try await store.hit("pw:ip:\(ip)", window: window, at: instant) }
    }

    public func succeeded(email: String) async throws {
        try await store.reset("pw:acct:\(email)")
    }
}
