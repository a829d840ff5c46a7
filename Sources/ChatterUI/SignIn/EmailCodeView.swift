#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// Password-less sign-in (F3): the email step, then the 6-digit code with a resend button that counts
    /// down the server's cooldown. The steps and their rules are `EmailCodeFlow`'s.
    public struct EmailCodeView: View {
        @Bindable var flow: EmailCodeFlow

        /// The two steps over `flow`.
        public init(flow: EmailCodeFlow) {
            self.flow = flow
        }

        public var body: some View {
            Form {
                switch flow.step {
                case .email:
                    emailStep
                case .code:
                    codeStep
                case .signedIn(let session):
                    Label("Signed in as \(session.username)", systemImage: "checkmark.circle.fill")
                case .secondFactor(let step):
                    SecondStepView(form: step)
                }
            }
            .errorBanner(flow.errorMessage)
        }

        private var emailStep: some View {
            Section {
                TextField("Email", text: $flow.email)
                    .emailEntry()
                    .onSubmit { Task { await flow.sendCode() } }
                FieldMessage(flow.emailMessage)
                ProgressButton(title: "Email Me a Code", isLoading: flow.isLoading) { await flow.sendCode() }
                    .disabled(!flow.canSendCode)
            } footer: {
                Text("We email you a 6-digit code. It works once, for 10 minutes.")
            }
        }

        private var codeStep: some View {
            Section {
                Text("Enter the code sent to \(flow.email).")
                TextField("6-digit code", text: $flow.code)
                    .oneTimeCodeEntry()
                    .onSubmit { Task { await flow.verify() } }
                ProgressButton(title: "Sign In", isLoading: flow.isLoading) { await flow.verify() }
                    .disabled(!flow.canVerify)
                Button(flow.resendTitle) {
                    Task { await flow.resend() }
                }
                .disabled(!flow.canResend)
                Button("Use a Different Email") { flow.changeEmail() }
            }
        }
    }

    #if DEBUG
        struct EmailCodeView_Previews: PreviewProvider {
            static var previews: some View {
                EmailCodeView(flow: EmailCodeFlow(client: .sample(signedIn: false)))
            }
        }
    #endif
#endif
