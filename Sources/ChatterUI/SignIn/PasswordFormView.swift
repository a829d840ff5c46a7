#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The email and password form (F2): live validation under each field, show/hide password, a strength
    /// meter when creating an account, submit enabled only when the form is valid, a spinner while waiting
    /// and a banner on failure. The rules and the messages are `PasswordForm`'s.
    public struct PasswordFormView: View {
        @Bindable var form: PasswordForm

        /// A form over `form`.
        public init(form: PasswordForm) {
            self.form = form
        }

        public var body: some View {
            Form {
                Section {
                    TextField("Email", text: $form.email)
                        .emailEntry()
                    FieldMessage(form.emailMessage)
                    HStack {
                        passwordField
                            .passwordEntry(new: form.mode == .signUp)
                        Button {
                            form.togglePasswordVisibility()
                        } label: {
                            Image(systemName: form.isPasswordVisible ? "eye.slash" : "eye")
                        }
                        .buttonStyle(.borderless)
                        .accessibilityLabel(form.isPasswordVisible ? "Hide password" : "Show password")
                    }
                    FieldMessage(form.passwordMessage)
                    if let strength = form.strength {
                        StrengthMeter(strength: strength)
                    }
                }
                if form.mode == .signUp {
                    Section {
                        TextField("6-digit code", text: $form.code)
                            .oneTimeCodeEntry()
                        Button("Email Me a Code") {
                            Task { await form.sendCode() }
                        }
                        .disabled(form.isLoading)
                    } header: {
                        Text("Verify your email")
                    }
                }
                switch form.progress {
                case .form:
                    Section {
                        ProgressButton(title: form.submitTitle, isLoading: form.isLoading) { await form.submit() }
                            .disabled(!form.canSubmit)
                        Button(form.switchModeTitle) { form.switchMode() }
                            .disabled(form.isLoading)
                    }
                case .secondStep(let step):
                    SecondStepView(form: step)
                case .signedIn(let session):
                    Label("Signed in as \(session.username)", systemImage: "checkmark.circle.fill")
                }
            }
            .errorBanner(form.errorBanner)
            .task { await form.load() }
        }

        @ViewBuilder private var passwordField: some View {
            if form.isPasswordVisible {
                TextField("Password", text: $form.password)
            } else {
                SecureField("Password", text: $form.password)
            }
        }
    }

    /// How strong the new password looks; the server's policy decides what is accepted.
    struct StrengthMeter: View {
        let strength: PasswordStrength

        var body: some View {
            ProgressView(value: strength.fraction) {
                Text("Strength: \(strength.label)")
                    .font(.footnote)
            }
            .tint(color)
            .accessibilityValue(strength.label)
        }

        private var color: Color {
            switch strength {
            case .weak: return .red
            case .fair: return .orange
            case .good: return .yellow
            case .strong: return .green
            }
        }
    }

    #if DEBUG
        struct PasswordFormView_Previews: PreviewProvider {
            static var previews: some View {
                PasswordFormView(form: PasswordForm(client: .sample(signedIn: false), mode: .signUp))
                // Signing in asks for the authenticator's code (123456) next.
                PasswordFormView(form: PasswordForm(client: .sample(signedIn: false, secondFactor: true)))
            }
        }
    #endif
#endif
