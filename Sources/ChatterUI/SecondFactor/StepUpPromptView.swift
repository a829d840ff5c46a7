#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// "Confirm it is you", as `StepUpPrompt` asks: the account's second factor (its code, a recovery code, or a
    /// passkey), or a fresh sign-in to the same account (a passkey, the password, an emailed code). Present it with
    /// `.stepUpPrompt(_:)`; confirming runs the waiting action, Cancel gives it up.
    public struct StepUpPromptView: View {
        @Bindable var prompt: StepUpPrompt

        /// The prompt over `prompt`.
        public init(prompt: StepUpPrompt) {
            self.prompt = prompt
        }

        public var body: some View {
            NavigationStack {
                Form {
                    // Every state the prompt can ask in has its way forward here; a new one fails to compile.
                    switch prompt.asking {
                    case .secondFactor:
                        secondFactor
                    case .signInAgain:
                        signInAgain
                    case nil:
                        EmptyView()
                    }
                    if prompt.offersPasskey {
                        Section {
                            ProgressButton(title: "Use a Passkey", isLoading: prompt.isLoading) { await prompt.usePasskey() }
                                .disabled(prompt.isLoading)
                        }
                    }
                }
                .navigationTitle(prompt.purpose?.title ?? "Confirm it is you")
                .toolbar {
                    ToolbarItem(placement: .cancellationAction) {
                        Button("Cancel") { prompt.cancel() }
                    }
                }
                .errorBanner(prompt.errorBanner)
            }
        }

        private var secondFactor: some View {
            Section {
                TextField(prompt.codeKeyboard == .digits ? "6-digit code" : "Recovery code", text: $prompt.code)
                    .codeEntry(prompt.codeKeyboard)
                    .onSubmit { Task { await prompt.submitCode() } }
                Button(prompt.switchKeyboardTitle) { prompt.switchKeyboard() }
                    .buttonStyle(.borderless)
                ProgressButton(title: "Confirm", isLoading: prompt.isLoading) { await prompt.submitCode() }
                    .disabled(prompt.isLoading || SecondFactorCodeKind(prompt.code) == nil)
            } footer: {
                Text("Enter the code from your authenticator app, or one of your recovery codes.")
            }
        }

        @ViewBuilder private var signInAgain: some View {
            if prompt.ways.contains(.password) {
                Section {
                    SecureField("Password", text: $prompt.password)
                        .passwordEntry(new: false)
                        .onSubmit { Task { await prompt.submitPassword() } }
                    ProgressButton(title: "Confirm", isLoading: prompt.isLoading) { await prompt.submitPassword() }
                        .disabled(prompt.isLoading || prompt.password.isEmpty)
                } header: {
                    Text("Your password")
                }
            }
            if prompt.ways.contains(.emailCode), let email = prompt.email {
                Section {
                    if prompt.emailCodeSent {
                        TextField("6-digit code", text: $prompt.code)
                            .codeEntry(.digits)
                            .onSubmit { Task { await prompt.submitEmailCode() } }
                        ProgressButton(title: "Confirm", isLoading: prompt.isLoading) { await prompt.submitEmailCode() }
                            .disabled(prompt.isLoading || prompt.code.count != 6)
                    }
                    ProgressButton(title: prompt.emailCodeSent ? "Send Another Code" : "Email Me a Code", isLoading: prompt.isLoading) {
                        await prompt.sendEmailCode()
                    }
                    .disabled(prompt.isLoading)
                } header: {
                    Text("A code sent to \(email)")
                }
            }
            if prompt.ways.isEmpty {
                Text("Sign out and sign in again, then try once more.")
            }
        }
    }

    #if DEBUG
        struct StepUpPromptView_Previews: PreviewProvider {
            static var previews: some View {
                StepUpPromptView(prompt: .sample(asking: .secondFactor))
                StepUpPromptView(prompt: .sample(asking: .signInAgain, purpose: .addPasskey))
            }
        }
    #endif

    extension View {
        /// Presents `prompt` as a sheet while it asks; swiping the sheet away gives the waiting action up.
        public func stepUpPrompt(_ prompt: StepUpPrompt) -> some View {
            sheet(isPresented: Binding(get: { prompt.asking != nil }, set: { if !$0 { prompt.cancel() } })) {
                StepUpPromptView(prompt: prompt)
            }
        }
    }
#endif
