#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The second step of a sign-in: the authenticator app's code on the number pad, or a recovery code on the
    /// full keyboard ("Use a recovery code"). The rules are `SecondStepForm`'s; when the waiting sign-in has
    /// expired, "Start Again" goes back to the first step of the flow that made it.
    public struct SecondStepView: View {
        @Bindable var form: SecondStepForm

        /// The step over `form`.
        public init(form: SecondStepForm) {
            self.form = form
        }

        public var body: some View {
            Section {
                if form.mustStartOver {
                    Text("This sign-in waited too long. Start again to get a new one.")
                    Button("Start Again") { form.startOver() }
                } else {
                    Text("Enter the code from your authenticator app, or one of your recovery codes.")
                    TextField(form.codeKeyboard == .digits ? "6-digit code" : "Recovery code", text: $form.code)
                        .codeEntry(form.codeKeyboard)
                        .onSubmit { Task { await form.submit() } }
                    Button(form.switchKeyboardTitle) { form.switchKeyboard() }
                        .buttonStyle(.borderless)
                    Toggle("Do not ask again on this device", isOn: $form.rememberDevice)
                    ProgressButton(title: "Sign In", isLoading: form.isLoading) { await form.submit() }
                        .disabled(!form.canSubmit)
                    Button("Sign In Another Way") { form.startOver() }
                        .disabled(form.isLoading)
                }
            } header: {
                Text("Two-step sign-in")
            }
            .errorBanner(form.errorBanner)
        }
    }

    #if DEBUG
        struct SecondStepView_Previews: PreviewProvider {
            static var previews: some View {
                // The sample's app code is 123456, and ABCDE-23456 a recovery code.
                Form {
                    SecondStepView(
                        form: SecondStepForm(
                            client: .sample(signedIn: false, secondFactor: true), challenge: SecondFactorChallenge(token: "sample", expiresIn: 300)))
                }
            }
        }
    #endif
#endif
