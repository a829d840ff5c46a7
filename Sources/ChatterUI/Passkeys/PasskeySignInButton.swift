#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// "Sign in with a passkey" over a `PasskeyFlow`: one tap, one Face ID (or Touch ID on a Mac). With `autofill`
    /// it also starts the AutoFill request as it appears, so on iOS the passkeys show above the keyboard of the
    /// screen's username field (`.textContentType(.username)`); tapping the button replaces that request. On a Mac
    /// there are no such suggestions, and nothing opens until the button is tapped.
    public struct PasskeySignInButton: View {
        let flow: PasskeyFlow
        let autofill: Bool

        /// A button over `flow`; `autofill` (on by default) offers passkeys in the keyboard's suggestions too.
        public init(flow: PasskeyFlow, autofill: Bool = true) {
            self.flow = flow
            self.autofill = autofill
        }

        public var body: some View {
            ProgressButton(title: "Sign in with a passkey", isLoading: flow.isLoading) {
                await flow.signIn()
            }
            .disabled(flow.isLoading)
            .accessibilityLabel("Sign in with a passkey")
            .errorBanner(flow.errorMessage)
            .task {
                if autofill { await flow.signIn(autofill: true) }
            }
        }
    }
#endif
