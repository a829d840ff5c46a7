import Foundation
import Observation

/// What the device offers for local authentication.
public enum BiometryKind: Sendable, Equatable {
    case none
    case touchID
    case faceID
    case opticID
    /// No biometry, but a device passcode.
    case passcodeOnly
}

public enum AuthenticationOutcome: Sendable, Equatable {
    case success
    case cancelled
    case failed
    /// Too many failures; the system requires the passcode before biometry works again.
    case lockedOut
}

/// Face ID / Touch ID / passcode, injected so the policy is testable without a device. On Apple
/// platforms `LocalAuthenticator` implements it with LocalAuthentication.
public protocol DeviceAuthenticator: Sendable {
    func availableKind() -> BiometryKind
    func authenticate(reason: String) async -> AuthenticationOutcome
}

/// Decides when the stored session must be unlocked (F5): on launch and after the app was in the
/// background longer than the grace period, only when a session exists and the device can authenticate.
@MainActor @Observable
public final class BiometricGate {
    public var isEnabled: Bool
    /// Seconds in the background that do not require unlocking again.
    public var gracePeriod: TimeInterval
    public private(set) var isLocked: Bool
    public private(set) var lastOutcome: AuthenticationOutcome?
    public private(set) var failures = 0

    @ObservationIgnored let authenticator: any DeviceAuthenticator
    @ObservationIgnored let now: @Sendable () -> Date
    @ObservationIgnored private var backgroundedAt: Date?

    public init(
        authenticator: any DeviceAuthenticator, isEnabled: Bool = true, gracePeriod: TimeInterval = 300,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.authenticator = authenticator
        self.isEnabled = isEnabled
        self.gracePeriod = gracePeriod
        self.now = now
        isLocked = false
    }

    /// Whether unlocking protects anything: a session to protect and a way to authenticate.
    public func applies(hasSession: Bool) -> Bool {
        isEnabled && hasSession && authenticator.availableKind() != .none
    }

    /// At launch: lock when the policy applies.
    public func appLaunched(hasSession: Bool) {
        isLocked = applies(hasSession: hasSession)
    }

    public func appEnteredBackground() {
        backgroundedAt = now()
    }

    /// Back in the foreground: lock again only after the grace period.
    public func appEnteredForeground(hasSession: Bool) {
        defer { backgroundedAt = nil }
        guard let backgroundedAt, applies(hasSession: hasSession) else { return }
        if now().timeIntervalSince(backgroundedAt) > gracePeriod { isLocked = true }
    }

    /// Asks the device; only success unlocks. A cancel leaves the session locked but never deletes it.
    @discardableResult
    public func unlock(reason: String) async -> AuthenticationOutcome {
        guard isLocked else { return .success }
        let outcome = await authenticator.authenticate(reason: reason)
        lastOutcome = outcome
        switch outcome {
        case .success:
            isLocked = false
            failures = 0
        case .failed:
            failures += 1
        case .cancelled, .lockedOut:
            break
        }
        return outcome
    }

    /// Turning the feature off needs the same proof as unlocking, so a passer-by cannot disable it.
    public func disable(reason: String) async -> Bool {
        guard isEnabled else { return true }
        guard await authenticator.authenticate(reason: reason) == .success else { return false }
        isEnabled = false
        isLocked = false
        return true
    }
}
