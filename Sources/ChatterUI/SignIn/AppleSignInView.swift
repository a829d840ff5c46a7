#if canImport(SwiftUI) && canImport(AuthenticationServices)
    import AuthenticationServices
    import ChatterKit
    import SwiftUI

    /// Sign in with Apple (F4), on iOS, macOS and watchOS: Apple's button, the nonce from the flow, and the
    /// credential handed to `AppleSignInFlow`, which keeps the name Apple gives only once until chatterd
    /// confirms it, and sends a kept one again when the view appears. The credential's authorization code goes to
    /// chatterd, which keeps Apple's token to revoke it when the account is deleted.
    public struct AppleSignInView: View {
        let flow: AppleSignInFlow
        @Environment(\.colorScheme) private var colorScheme

        /// A button over `flow`.
        public init(flow: AppleSignInFlow) {
            self.flow = flow
        }

        public var body: some View {
            if let step = flow.secondStep {
                // Apple vouched for an account with an authenticator app: its code comes next, here.
                Form { SecondStepView(form: step) }
            } else {
                button
            }
        }

        private var button: some View {
            VStack(spacing: 12) {
                SignInWithAppleButton(.signIn) { request in
                    request.requestedScopes = [.fullName, .email]
                    request.nonce = flow.startRequest().hashed
                } onCompletion: { result in
                    Task { await flow.complete(result.map(AppleCredential.init), isCancellation: AppleCredential.isCancellation) }
                }
                .signInWithAppleButtonStyle(colorScheme == .dark ? .white : .black)
                .frame(height: 48)
                .disabled(flow.isLoading)
                if flow.isLoading { ProgressView() }
                FieldMessage(flow.errorMessage)
                if flow.hasPendingRegistration {
                    Text("Your name will be saved once Chatter's server answers.")
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                }
            }
            .task { await flow.retryPendingRegistration() }
        }
    }

    extension AppleCredential {
        /// The fields of Apple's credential that chatterd needs.
        init(_ authorization: ASAuthorization) {
            let credential = authorization.credential as? ASAuthorizationAppleIDCredential
            self.init(
                identityToken: credential?.identityToken, fullName: credential?.fullName, email: credential?.email,
                authorizationCode: credential?.authorizationCode, user: credential?.user)
        }

        /// The user closed Apple's sheet.
        @Sendable static func isCancellation(_ error: any Error) -> Bool {
            (error as? ASAuthorizationError)?.code == .canceled
        }
    }

    #if DEBUG
        struct AppleSignInView_Previews: PreviewProvider {
            static var previews: some View {
                AppleSignInView(flow: AppleSignInFlow(client: .sample(signedIn: false)))
                    .padding()
            }
        }
    #endif
#endif
