#if canImport(LocalAuthentication) && !os(watchOS) && !os(tvOS)
    import Foundation
    import LocalAuthentication

    /// Face ID / Touch ID with the device passcode as fallback (`deviceOwnerAuthentication`). Not on watchOS,
    /// where LocalAuthentication has no biometry to report. The context a successful prompt evaluated is kept in
    /// `context`: give it to `KeychainStore(authenticationContext:)`, and the read of a Face ID-protected session
    /// that follows the unlock asks nothing more (developer.apple.com/documentation/security/ksecuseauthenticationcontext).
    public final class LocalAuthenticator: DeviceAuthenticator, @unchecked Sendable {
        private let lock = NSLock()
        private var evaluated: LAContext?

        /// An authenticator that asks LocalAuthentication at each call.
        public init() {}

        /// The context of the last successful unlock, or nil before one (or after `invalidate()`).
        public var context: LAContext? { lock.withLock { evaluated } }

        /// Forgets the evaluated context, so the next Keychain read asks again; the gate locking again calls for it.
        public func invalidate() {
            let old = lock.withLock { () -> LAContext? in
                defer { evaluated = nil }
                return evaluated
            }
            old?.invalidate()
        }

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

        /// Shows the system prompt with `reason` on a fresh context, kept as `context` when it succeeds. The
        /// outcome of a failure follows `AuthenticationOutcome(localAuthenticationErrorCode:)`.
        public func authenticate(reason: String) async -> AuthenticationOutcome {
            let fresh = LAContext()
            do {
                guard try await fresh.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason) else { return .failed }
                let old = lock.withLock { () -> LAContext? in
                    defer { evaluated = fresh }
                    return evaluated
                }
                old?.invalidate()
                return .success
            } catch let error as LAError {
                return AuthenticationOutcome(localAuthenticationErrorCode: error.code.rawValue)
            } catch {
                return .failed
            }
        }
    }
#endif
