#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The sheet that asks for Google sign-in before a post (F1). Its button runs the app's `idToken`
    /// provider and hands the token to the flow, whose waiting post then continues; Cancel fails that post.
    public struct GoogleSignInSheet: View {
        let flow: ChattFlow
        let idToken: @MainActor () async throws -> String

        /// A sheet over `flow`; `idToken` presents Google Sign-In and returns its ID token.
        public init(flow: ChattFlow, idToken: @escaping @MainActor () async throws -> String) {
            self.flow = flow
            self.idToken = idToken
        }

        public var body: some View {
            NavigationStack {
                if let step = flow.secondStep {
                    // Google vouched for an account with an authenticator app: its code, then the post goes on.
                    Form { SecondStepView(form: step) }
                        .toolbar {
                            ToolbarItem(placement: .cancellationAction) {
                                Button("Cancel") { flow.cancelSignIn() }
                            }
                        }
                } else {
                    googleStep
                }
            }
            .presentationDetents([.medium])
        }

        private var googleStep: some View {
            Group {
                VStack(spacing: 16) {
                    Image(systemName: "person.crop.circle.badge.checkmark")
                        .font(.system(size: 48))
                        .foregroundStyle(.tint)
                    Text("Sign in to post")
                        .font(.title2.bold())
                    Text("Your chatts are posted under your Google account's name.")
                        .multilineTextAlignment(.center)
                        .foregroundStyle(.secondary)
                    Button {
                        Task { await flow.completeSignIn(using: idToken) }
                    } label: {
                        Text("Sign in with Google")
                            .frame(maxWidth: .infinity)
                    }
                    .buttonStyle(.borderedProminent)
                    .disabled(flow.isSigningIn)
                    if flow.isSigningIn { ProgressView() }
                }
                .padding()
                .toolbar {
                    ToolbarItem(placement: .cancellationAction) {
                        Button("Cancel") { flow.cancelSignIn() }
                    }
                }
            }
        }
    }

    #if DEBUG
        struct GoogleSignInSheet_Previews: PreviewProvider {
            static var previews: some View {
                GoogleSignInSheet(flow: ChattFlow(client: .sample(signedIn: false), clientID: "preview"), idToken: { "preview" })
            }
        }
    #endif
#endif
