import ChatterCore
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
        /// Attempts from every recognised device of one account together, per day: a device's own allowance
        /// keeps strangers from locking it out, and this keeps stolen tokens from multiplying guesses.
        public var perAccountDevicesPerDay = 50
        public init() {}
    }

    public var limits = Limits()
    let store: any RateLimitRepository
    package let now: @Sendable () -> Date

    public init(store: any RateLimitRepository, limits: Limits = Limits(), now: @escaping @Sendable () -> Date) {
        self.store = store
        self.limits = limits
        self.now = now
    }

    /// The outcome of taking an attempt: go ahead (holding the counters it took), or wait.
    public enum Admission: Sendable, Equatable {
        case allowed(Ticket)
        case refused(retryAfter: Int)

        /// Seconds to wait before trying again; 0 when allowed.
        public var wait: Int {
            if case .refused(let seconds) = self { return seconds }
            return 0
        }
    }

    /// The counters an admitted attempt took, handed back by `release` when the password was right (or was
    /// never checked): the limits are on failures, so an owner who signs in often is never throttled by it.
    public struct Ticket: Sendable, Equatable {
        package let keys: [String]
    }

    /// Takes one attempt at `account`'s password before it is checked; `networks` are the client's limit keys
    /// (`ClientInfo.limitKeys`: its address or IPv6 /64, then its /48 with a wider limit). A refused attempt has still
    /// been counted, which only makes the limit stricter.
    public func admit(account: String, networks: [String], device: DeviceTokens.Device?) async throws -> Admission {
        let instant = now()
        var taken: [String] = []
        func take(_ key: String, _ limit: Int, window: Double) async throws -> Bool {
            taken.append(key)
            return try await store.hit(key, window: window, at: instant) <= limit
        }
        if let device {
            guard try await take(RateLimitKeys.passwordDevice(device.key), limits.perDevice, window: limits.window) else {
                return .refused(retryAfter: Int(limits.window))
            }
            guard try await take(RateLimitKeys.passwordDevicesDay(account), limits.perAccountDevicesPerDay, window: 86_400) else {
                return .refused(retryAfter: 86_400)
            }
            return .allowed(Ticket(keys: taken))
        }
        for (index, network) in networks.enumerated() {
            guard try await take(RateLimitKeys.passwordNetwork(network), ClientNetwork.limit(limits.perIP, widenedFor: index), window: limits.window) else {
                return .refused(retryAfter: Int(limits.window))
            }
        }
        guard try await take(RateLimitKeys.passwordAttempts(account), limits.perAccount, window: limits.window) else {
            return .refused(retryAfter: Int(limits.window))
        }
        guard try await take(RateLimitKeys.passwordDay(account), limits.perAccountPerDay, window: 86_400) else { return .refused(retryAfter: 86_400) }
        return .allowed(Ticket(keys: taken))
    }

    /// The password was right, or was never checked (the hasher was busy): the attempt does not count.
    public func release(_ ticket: Ticket) async throws {
        for key in ticket.keys { try await store.release(key) }
    }
}
