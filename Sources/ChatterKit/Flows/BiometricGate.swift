import Foundation
import Observation

/// What the device offers for local authentication.
public enum BiometryKind: Sendable, Equatable {
    /// Neither biometry nor a passcode: nothing to unlock with, so the gate never locks.
    case none
    /// Touch ID.
    case touchID
    /// Face ID.
    case faceID
    /// Optic ID (Apple Vision Pro).
    case opticID
    /// No biometry, but a device passcode.
    case passcodeOnly
}

/// How an attempt to authenticate ended.
public enum AuthenticationOutcome: Sendable, Equatable {
    /// The user proved who they are: the gate unlocks.
    case success
    /// The user, the app or the system closed the prompt: the gate stays locked, and no message shows.
    case cancelled
    /// Not recognised: the gate stays locked and the user may try again.
    case failed
    /// Too many failures; the system requires the passcode before biometry works again.
    case lockedOut
    /// The device cannot ask now: no passcode set, no face or finger enrolled, biometry turned off for the app.
    case unavailable
}

extension AuthenticationOutcome {
    /// The outcome for LocalAuthentication's `LAError.Code` raw value, kept here so the mapping is tested on
    /// every platform (developer.apple.com/documentation/localauthentication/laerror-swift.struct/code).
    /// `notInteractive` (-1004: the app is not in the foreground) is a cancel: the lock asks again when active.
    public init(localAuthenticationErrorCode code: Int) {
        switch code {
        case -2, -3, -4, -9, -1004: self = .cancelled  // userCancel, userFallback, systemCancel, appCancel, notInteractive
        case -8: self = .lockedOut  // biometryLockout
        case -5, -6, -7: self = .unavailable  // passcodeNotSet, biometryNotAvailable, biometryNotEnrolled
        default: self = .failed  // authenticationFailed, invalidContext, and codes added later
        }
    }
}

/// Face ID / Touch ID / passcode, injected so the policy is testable without a device. On Apple
/// platforms `LocalAuthenticator` implements it with LocalAuthentication.
public protocol DeviceAuthenticator: Sendable {
    /// What the device offers now; `.none` when it can authenticate neither way.
    func availableKind() -> BiometryKind
    /// Shows the system prompt with `reason` and waits for the user; every ending is an outcome, nothing throws.
    func authenticate(reason: String) async -> AuthenticationOutcome
    /// Forgets what the last success proved (its LAContext), so nothing it unlocked stays unlocked: called
    /// each time the gate locks.
    func invalidate()
}

extension DeviceAuthenticator {
    /// Nothing to forget: the default for authenticators that keep no context.
    public func invalidate() {}
}

/// Decides when the stored session must be unlocked (F5): on launch and after the app was in the
/// background longer than the grace period, only when a session exists and the device can authenticate.
@MainActor @Observable
public final class BiometricGate {
    /// Whether the lock is on; off, the gate never locks. Setting it asks for no proof: a settings switch
    /// turns it off with `disable(reason:)`, which does.
    public var isEnabled: Bool
    /// Seconds in the background that do not require unlocking again.
    public var gracePeriod: TimeInterval
    /// The content stays covered until `unlock(reason:)` succeeds.
    public private(set) var isLocked: Bool
    /// The app is not active (the app switcher, a call, the background) while a session is protected: cover the
    /// content, so the system's snapshot and a glance show nothing. It lifts when the app is active again.
    public private(set) var isCovered = false
    /// Whether the content must not be seen: locked or covered.
    public var hidesContent: Bool { isLocked || isCovered }

    /// What the app shows, as a closed set its root switches over.
    public enum Screen: Sendable, Equatable {
        /// The content.
        case content
        /// The content stays (its tabs, navigation and drafts kept) under a cover: the app is not active (Control
        /// Center, a call, the app switcher, a Face ID sheet) and its snapshot must show nothing.
        case covered
        /// The lock screen alone: the content leaves the view tree, so none of its tasks make signed-in requests.
        case locked
    }

    /// What to show now.
    public var screen: Screen { isLocked ? .locked : isCovered ? .covered : .content }
    /// How the last attempt ended; `nil` before the first. `message` puts it in words.
    public private(set) var lastOutcome: AuthenticationOutcome?
    /// Failed attempts since the last success.
    public private(set) var failures = 0

    @ObservationIgnored let authenticator: any DeviceAuthenticator
    @ObservationIgnored let now: @Sendable () -> Date
    @ObservationIgnored private var backgroundedAt: Date?
    /// The launch's session has been seen; later sign-ins do not lock.
    @ObservationIgnored private var sawLaunchSession = false
    /// `untilUnlocked()` callers, resumed when the gate opens.
    @ObservationIgnored private var waiters: [CheckedContinuation<Void, Never>] = []

    /// An unlocked gate over `authenticator`; `appLaunched(hasSession:)` or `follow(_:)` locks it. `gracePeriod`
    /// is in seconds; `now` is the clock, which tests replace.
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
        if isLocked { authenticator.invalidate() }
    }

    /// Follows the app's auth state: the session found at launch locks, a sign-in later does not (the
    /// user has just proved who they are), and a session that ended leaves nothing to protect.
    public func follow(_ phase: AuthState.Phase) {
        switch phase {
        case .starting, .storageUnavailable:
            return
        case .signedIn:
            if !sawLaunchSession { appLaunched(hasSession: true) }
        case .signedOut, .expired:
            isLocked = false
            resumeWaiters()
        }
        sawLaunchSession = true
    }

    /// At launch, before the stored session is read (`AuthState.run(unlockingWith:)`): locks when a session is
    /// stored, so the lock screen's one prompt evaluates the context the Keychain then reads with, instead of the
    /// read prompting first and the lock again. The session then read counts as the launch's.
    /// Without a stamp (none stored, or a session stored by a version before stamps) nothing changes: the session the
    /// read finds locks as `follow(_:)` always did, so an upgraded app is never left open.
    public func lockBeforeReading(hasStoredSession: Bool) {
        guard hasStoredSession else { return }
        sawLaunchSession = true
        appLaunched(hasSession: true)
    }

    /// Returns once the gate is unlocked (at once when it is), or the calling task is cancelled.
    public func untilUnlocked() async {
        while isLocked, !Task.isCancelled {
            await withTaskCancellationHandler {
                await withCheckedContinuation { waiters.append($0) }
            } onCancel: {
                Task { @MainActor [weak self] in self?.resumeWaiters() }
            }
        }
    }

    private func resumeWaiters() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// The app went to the background: the grace period starts.
    public func appEnteredBackground() {
        backgroundedAt = now()
    }

    /// The app is no longer active (it may be about to be snapshotted for the app switcher): covers the content.
    public func appResignedActive(hasSession: Bool) {
        if applies(hasSession: hasSession) { isCovered = true }
    }

    /// Back in the foreground: lock again only after the grace period; the cover lifts.
    public func appEnteredForeground(hasSession: Bool) {
        isCovered = false
        defer { backgroundedAt = nil }
        guard let backgroundedAt, applies(hasSession: hasSession) else { return }
        if now().timeIntervalSince(backgroundedAt) > gracePeriod {
            isLocked = true
            authenticator.invalidate()
        }
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
            resumeWaiters()
        case .failed:
            failures += 1
        case .cancelled, .lockedOut, .unavailable:
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
        resumeWaiters()
        return true
    }
}
