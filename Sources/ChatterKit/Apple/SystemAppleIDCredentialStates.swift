#if canImport(AuthenticationServices)
    import AuthenticationServices

    /// Apple's answer to "does this Apple ID still use Sign in with Apple with this app?"
    /// (`ASAuthorizationAppleIDProvider.credentialState(forUserID:)`), for the launch check.
    public struct SystemAppleIDCredentialStates: AppleIDCredentialStates {
        /// Asks `ASAuthorizationAppleIDProvider`.
        public init() {}

        /// Apple's state for `userID`; a state of a later system counts as authorized.
        public func state(forUserID userID: String) async throws -> AppleIDCredentialState {
            switch try await ASAuthorizationAppleIDProvider().credentialState(forUserID: userID) {
            case .authorized: .authorized
            case .revoked: .revoked
            case .notFound: .notFound
            case .transferred: .transferred
            // A state of a later system: not a reason to sign anyone out.
            @unknown default: .authorized
            }
        }
    }
#endif
