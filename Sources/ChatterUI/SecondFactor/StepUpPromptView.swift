#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The code prompt `StepUpPrompt` asks for before an action that matters; present it while
    /// `prompt.isPrompting` (a sheet, say). Confirming runs the waiting action.
    public struct StepUpPromptView: View {
        @Bindable var prompt: StepUpPrompt

        /// The prompt over `prompt`.
        public init(prompt: StepUpPrompt) {
            self.prompt = prompt
        }

        public var body: some View {
            Form {
                Section {
                    Text("This needs your second factor: enter the code from your authenticator app, or a recovery code.")
                    TextField("Code", text: $prompt.code)
                        .oneTimeCodeEntry()
                        .onSubmit { Task { await prompt.submit() } }
                    ProgressButton(title: "Confirm", isLoading: prompt.isLoading) { await prompt.submit() }
                    Button("Cancel") { prompt.cancel() }
                } header: {
                    Text("Confirm it is you")
                }
            }
            .errorBanner(prompt.errorBanner)
        }
    }
#endif
