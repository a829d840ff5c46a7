import Foundation

extension BiometryKind {
    /// The lock screen's button title.
    public var unlockTitle: String {
        switch self {
        case .faceID: return "Unlock with Face ID"
        case .touchID: return "Unlock with Touch ID"
        case .opticID: return "Unlock with Optic ID"
        case .passcodeOnly: return "Unlock with Passcode"
        case .none: return "Unlock"
        }
    }

    /// The SF Symbol that goes with `unlockTitle`.
    public var systemImage: String {
        switch self {
        case .faceID: return "faceid"
        case .touchID: return "touchid"
        case .opticID: return "opticid"
        case .passcodeOnly, .none: return "lock.fill"
        }
    }
}

extension BiometricGate {
    /// What the device offers, for the lock screen's button.
    public var kind: BiometryKind { authenticator.availableKind() }

    /// What to say under the button after an attempt; `nil` before one, after success or a cancel.
    public var message: String? {
        switch lastOutcome {
        case .failed?: return "Not recognised. Try again."
        case .lockedOut?: return "Too many attempts. Unlock with your device passcode."
        case .unavailable?: return "This device cannot check it is you: set a passcode (and Face ID or Touch ID) in Settings."
        case .success?, .cancelled?, nil: return nil
        }
    }

    /// Follows the scene's phase (SwiftUI's `scenePhase`): leaving `.active` covers the content at once (before
    /// the app switcher's snapshot), the background starts the grace period, and coming back active after it
    /// locks again.
    public func scenePhaseChanged(isActive: Bool, isBackground: Bool, hasSession: Bool) {
        if !isActive { appResignedActive(hasSession: hasSession) }
        if isBackground { appEnteredBackground() }
        if isActive { appEnteredForeground(hasSession: hasSession) }
    }
}
