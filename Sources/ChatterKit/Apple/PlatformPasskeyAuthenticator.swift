#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices
    import Foundation

    /// Passkeys on Apple platforms: Face ID, Touch ID or Optic ID over `ASAuthorizationController` with
    /// `ASAuthorizationPlatformPublicKeyCredentialProvider` (iCloud Keychain or another passkey provider).
    /// It only copies fields: `PasskeyRegistrationParts`, `PasskeyAssertionParts` and the response
    /// initialisers do the decoding and encoding, and are tested on Linux. The app's Associated Domains
    /// must list `webcredentials:` and chatterd's relying party ID, and chatterd must serve the matching
    /// `apple-app-site-association` (`--apple-app-id`).
    @available(iOS 16.0, macOS 13.0, visionOS 1.0, *)
    @MainActor
    public final class PlatformPasskeyAuthenticator: PasskeyAuthenticator {
        private let anchor: @MainActor () -> ASPresentationAnchor
        /// The AutoFill request waiting for a field to gain focus, cancelled before a sheet is shown.
        private var waiting: ASAuthorizationController?
        /// Every request under way, by its own id: the task that asked cancelling ends its request.
        private var inFlight: [UUID: ASAuthorizationController] = [:]

        /// AutoFill-assisted requests exist on iOS and visionOS; on a Mac (AppKit or Catalyst) passkeys are offered by
        /// the button's sheet alone.
        public nonisolated var offersAutofill: Bool {
            #if os(iOS) && !targetEnvironment(macCatalyst) || os(visionOS)
                true
            #else
                false
            #endif
        }

        /// An authenticator presenting over the window `anchor` returns (the view's window).
        public init(anchor: @escaping @MainActor () -> ASPresentationAnchor) {
            self.anchor = anchor
        }

        /// Makes a passkey in the system sheet; on iOS 17.4 and macOS 14.4 and later a device that
        /// already holds one of the account's passkeys makes no second.
        public func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON {
            let parts = try PasskeyRegistrationParts(options)
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: parts.relyingPartyID)
            let request = provider.createCredentialRegistrationRequest(challenge: parts.challenge, name: parts.userName, userID: parts.userID)
            request.displayName = parts.displayName
            request.userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: parts.userVerification)
            if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                request.excludedCredentials = parts.excludedCredentialIDs.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
            }
            guard case .registration(let response) = try await perform(request, autofill: false) else { throw PasskeyOptionsError(field: "credential") }
            return response
        }

        /// Signs in with a passkey the user picks in the sheet, or (`autofill`, iOS and visionOS) in the
        /// keyboard's suggestions above a field whose content type is `.username`.
        public func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON {
            let parts = try PasskeyAssertionParts(options)
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: parts.relyingPartyID)
            let request = provider.createCredentialAssertionRequest(challenge: parts.challenge)
            request.userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: parts.userVerification)
            request.allowedCredentials = parts.allowedCredentialIDs.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
            guard case .assertion(let response) = try await perform(request, autofill: autofill) else { throw PasskeyOptionsError(field: "credential") }
            return response
        }

        private func perform(_ request: ASAuthorizationRequest, autofill: Bool) async throws -> PlatformCredential {
            // A sheet while an AutoFill request waits would fail: that one ends as a cancel.
            waiting?.cancel()
            var held: (controller: ASAuthorizationController, ceremony: PasskeyCeremony)?
            let id = UUID()
            // Held until the request ends, whichever way: the controller keeps its delegate weakly.
            defer {
                if let held, waiting === held.controller { waiting = nil }
                held?.controller.delegate = nil
                inFlight[id] = nil
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let ceremony = PasskeyCeremony(anchor: anchor()) { continuation.resume(with: $0) }
                    let controller = ASAuthorizationController(authorizationRequests: [request])
                    controller.delegate = ceremony
                    controller.presentationContextProvider = ceremony
                    held = (controller, ceremony)
                    inFlight[id] = controller
                    // Apple's AutoFill-assisted requests are iOS's and visionOS's (a Mac Catalyst build has no such call):
                    // elsewhere an AutoFill request opens no sheet nobody asked for, and waits to be cancelled.
                    #if os(iOS) && !targetEnvironment(macCatalyst) || os(visionOS)
                        if autofill {
                            waiting = controller
                            controller.performAutoFillAssistedRequests()
                            return
                        }
                    #else
                        if autofill {
                            waiting = controller
                            return
                        }
                    #endif
                    controller.performRequests()
                }
            } onCancel: {
                // The screen that asked went away: its request ends (the delegate hears `.canceled`), so a late pick
                // signs nobody in. https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/cancel()
                Task { @MainActor [weak self] in self?.cancel(id) }
            }
        }

        /// Ends the request `id` if it is still under way; a controller that was never performed ends here too.
        private func cancel(_ id: UUID) {
            guard let controller = inFlight[id] else { return }
            controller.cancel()
            // A controller never performed (an AutoFill request where there is none) may hear nothing from `cancel()`:
            // its delegate is told as AuthenticationServices tells one of a cancel. A ceremony ends once, so a
            // controller that did hear it ignores this.
            (controller.delegate as? PasskeyCeremony)?.authorizationController(controller: controller, didCompleteWithError: ASAuthorizationError(.canceled))
        }
    }

    /// What a finished ceremony gives, in the JSON chatterd reads (Sendable, unlike the platform's objects).
    enum PlatformCredential: Sendable {
        case registration(RegistrationResponseJSON)
        case assertion(AuthenticationResponseJSON)

        /// The platform's credential, read as
        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistration
        /// and …/asauthorizationplatformpublickeycredentialassertion describe it.
        init(_ credential: any ASAuthorizationCredential) throws {
            if let registration = credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration,
                let attestation = registration.rawAttestationObject
            {
                self = .registration(
                    RegistrationResponseJSON(
                        credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON, attestationObject: attestation))
            } else if let assertion = credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion {
                self = .assertion(
                    AuthenticationResponseJSON(
                        credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
                        authenticatorData: assertion.rawAuthenticatorData, signature: assertion.signature, userHandle: assertion.userID))
            } else {
                throw PasskeyOptionsError(field: "credential")
            }
        }
    }

    /// The controller's delegate for one request. The callbacks are nonisolated (AuthenticationServices
    /// calls them on the main thread) and hand on only Sendable values.
    @MainActor
    final class PasskeyCeremony: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
        private let anchor: ASPresentationAnchor
        /// Resumes the waiting request: once, though a cancel may be told twice (`PlatformPasskeyAuthenticator.cancel`).
        private let resume: @Sendable (Result<PlatformCredential, any Error>) -> Void
        private let ended = Locked(false)

        init(anchor: ASPresentationAnchor, finish: @escaping @Sendable (Result<PlatformCredential, any Error>) -> Void) {
            self.anchor = anchor
            resume = finish
        }

        private nonisolated func finish(_ result: Result<PlatformCredential, any Error>) {
            let first = ended.withLock { ended in
                defer { ended = true }
                return !ended
            }
            if first { resume(result) }
        }

        nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
            let result = Result { try PlatformCredential(authorization.credential) }
            finish(result)
        }

        nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
            // A cancel (the user's, or an AutoFill request's for a sheet) is ChatterError.cancelled: no banner. A device
            // that holds one of the account's passkeys already says so in words, not as error 1006.
            let code = (error as? ASAuthorizationError)?.code
            if code == .canceled { return finish(.failure(ChatterError.cancelled)) }
            if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *), code == .matchedExcludedCredential { return finish(.failure(PasskeyAlreadyOnDevice())) }
            finish(.failure(error))
        }

        nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
            MainActor.assumeIsolated { anchor }
        }
    }
#endif
