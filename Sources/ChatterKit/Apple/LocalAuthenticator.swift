#if canImport(LocalAuthentication) && !os(watchOS) && !os(tvOS)
    import Foundation
    import LocalAuthentication

    /// Face ID / Touch ID with the device passcode as fallback (`deviceOwnerAuthentication`). Not on watchOS,
    /// where LocalAuthentication has no biometry to report.
    public struct LocalAuthenticator: DeviceAuthenticator {
        /// An authenticator that asks LocalAuthentication at each call.
        public init() {}

        /// What the device offers now; `.none` when no passcode is set, so `BiometricGate` does not lock.
        public func availableKind() -> BiometryKind {
            let context = LAContext()
            var error: NSError?
            guard context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) else { return .none }
            _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
            switch context.biometryType {
            case .faceID: return .faceID
            case .touchID: return .touchID
            case .none: return .passcodeOnly
            default:
                if #available(iOS 17, macOS 14, visionOS 1, *), context.biometryType == .opticID { return .opticID }
                return .passcodeOnly
            }
        }

        /// Shows the system prompt with `reason`. A cancel (by the user, the app or the system) is `.cancelled`; too
        /// many failed attempts are `.lockedOut`.
        public func authenticate(reason: String) async -> AuthenticationOutcome {
            let context = LAContext()
            do {
                return try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason) ? .success : .failed
            } catch let error as LAError {
                switch error.code {
                case .userCancel, .appCancel, .systemCancel, .userFallback: return .cancelled
                case .biometryLockout: return .lockedOut
                default: return .failed
                }
            } catch {
                return .failed
            }
        }
    }
#endif
