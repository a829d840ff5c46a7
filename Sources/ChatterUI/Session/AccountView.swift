#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The account screen (F5): who is signed in and with what, sign-out of this device or of every device,
    /// and account deletion after a confirmation.
    public struct AccountView: View {
        @Bindable var account: AccountFlow

        /// A screen over `account`.
        public init(account: AccountFlow) {
            self.account = account
        }

        public var body: some View {
            Form {
                if let profile = account.profile {
                    Section {
                        LabeledContent("Name", value: profile.displayName)
                        if let email = profile.email {
                            LabeledContent("Email", value: email)
                        }
                        LabeledContent("Signs in with", value: account.methodsDescription)
                    }
                }
                Section {
                    Button("Sign Out") {
                        Task { await account.signOut() }
                    }
                    Button("Sign Out of All Devices") {
                        Task { await account.signOutEverywhere() }
                    }
                }
                .disabled(!account.canAct)
                Section {
                    Button("Delete Account", role: .destructive) { account.requestDeletion() }
                        .disabled(!account.canAct)
                } footer: {
                    Text("Deleting your account removes your chatts, sessions and sign-in methods.")
                }
            }
            .confirmationDialog("Delete your account?", isPresented: $account.isConfirmingDeletion, titleVisibility: .visible) {
                Button("Delete Account", role: .destructive) {
                    Task { await account.confirmDeletion() }
                }
                Button("Cancel", role: .cancel) {}
            } message: {
                Text("This cannot be undone.")
            }
            .overlay {
                if account.isLoading { ProgressView() }
            }
            .errorBanner(account.errorMessage)
            .stepUpPrompt(account.stepUp)
            .navigationTitle("Account")
            .task { await account.load() }
        }
    }

    #if DEBUG
        struct AccountView_Previews: PreviewProvider {
            static var previews: some View {
                NavigationStack {
                    AccountView(account: AccountFlow(client: .sample()))
                }
                NavigationStack {
                    // Deleting asks to confirm it is you (the code is 123456).
                    AccountView(account: AccountFlow(client: .sample(secondFactor: true)))
                }
            }
        }
    #endif
#endif
