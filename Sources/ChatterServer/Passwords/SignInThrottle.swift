import Foundation

/// Limits password guessing without letting an attacker lock the owner out. Every attempt is counted
/// before its password is hashed, in one store step per counter, so concurrent attempts cannot slip
/// past a limit. A recognised device (see `DeviceTokens`) draws only on its own allowance; every other
/// attempt on an account counts per client address, per account, and per account per day — the last
/// bounds an attacker's guesses however many addresses it uses.
public struct SignInThrottle: Sendable {
    public struct Limits: Sendable {
        public var window: Double = 15 * 60
        public var perDevice = 10
        public var perAccount = 10
        public var perIP = 100
        public var perAccountPerDay = 100
        public init() {}
    }

    public var limits = Limits()
    let store: any RateLimitRepository
    let now: @Sendable () -> Date

    public init(store: any RateLimitRepository, limits: Limits = Limits(), now: @escaping @Sendable () -> Date) {
        self.store = store
        self.limits = limits
        self.now = now
    }

    /// Takes one attempt at `account`'s password. Nil: go ahead; otherwise the seconds to wait. A refused
    /// attempt has still been counted, which only makes the limit stricter.
    public func admit(account: String, ip: String?, device: DeviceTokens.Device?) async throws -> Int? {
        let instant = now()
        if let device {
            let used = try await store.hit("pw:dev:\(device.key)", window: limits.window, at: instant)
            return used > limits.perDevice ? Int(limits.window) : nil
        }
        if let ip, try await store.hit("pw:ip:\(ip)", window: limits.window, at: instant) > limits.perIP { return Int(limits.window) }
        if try await store.hit("pw:acct:\(account)", window: limits.window, at: instant) > limits.perAccount { return Int(limits.window) }
        if try await store.hit("pw:day:\(account)", window: 86_400, at: instant) > limits.perAccountPerDay { return 86_400 }
        return nil
    }
}
