#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The second step of a sign-in: the authenticator app's code or a recovery code. The rules are
    /// `SecondStepForm`'s; when the waiting sign-in has expired, `onStartOver` goes back to the first step.
    public struct SecondStepView: View {
        @Bindable var form: SecondStepForm
        let onStartOver: () -> Void

        /// The step over `form`; `onStartOver` when it can no longer complete.
        public init(form: SecondStepForm, onStartOver: @escaping () -> Void = {}) {
            self.form = form
            self.onStartOver = onStartOver
        }

        public var body: some View {
            Section {
                Text("Enter the code from your authenticator app, or one of your recovery codes.")
                TextField("Code", text: $form.code)
                    .oneTimeCodeEntry()
                    .onSubmit { Task { await form.submit() } }
                Toggle("Do not ask again on this device", isOn: $form.rememberDevice)
                ProgressButton(title: "Sign In", isLoading: form.isLoading) { await form.submit() }
                    .disabled(!form.canSubmit)
                if form.mustStartOver {
                    Button("Start Again") { onStartOver() }
                }
            } header: {
                Text("Two-step sign-in")
            }
            .errorBanner(form.errorBanner)
        }
    }
#endif
