#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The account's passkeys: each with where it lives and whether it syncs, "Rename" and "Remove" (the
    /// server refuses the last way to sign in, and the banner says so), and "Add a passkey".
    public struct PasskeyListView: View {
        let flow: PasskeyFlow
        @State private var renaming: PasskeyInfo?
        @State private var isRenaming = false
        @State private var newName = ""

        /// A list over `flow`, read when it appears.
        public init(flow: PasskeyFlow) {
            self.flow = flow
        }

        public var body: some View {
            List {
                Section {
                    ForEach(flow.passkeys, id: \.id) { passkey in
                        VStack(alignment: .leading, spacing: 4) {
                            Text(passkey.name)
                                .font(.headline)
                            Text(flow.detail(for: passkey))
                                .font(.caption)
                                .foregroundStyle(.secondary)
                            HStack {
                                Button("Rename") {
                                    renaming = passkey
                                    newName = passkey.name
                                    isRenaming = true
                                }
                                Spacer()
                                Button("Remove", role: .destructive) { flow.requestRemoval(passkey) }
                            }
                            .buttonStyle(.borderless)
                            .disabled(flow.isLoading)
                        }
                    }
                } footer: {
                    Text("A passkey signs you in with Face ID or Touch ID: no password, no code.")
                }
                Section {
                    ProgressButton(title: "Add a passkey", isLoading: flow.isLoading) {
                        await flow.addPasskey()
                    }
                    .disabled(flow.isLoading)
                }
            }
            .sheet(isPresented: $isRenaming) {
                Form {
                    TextField("Name", text: $newName)
                    Button("Save") {
                        guard let passkey = renaming else { return }
                        isRenaming = false
                        Task { await flow.rename(passkey, to: newName) }
                    }
                    .disabled(newName.trimmingCharacters(in: .whitespaces).isEmpty)
                }
            }
            .confirmationDialog(
                "Remove \(flow.removing?.name ?? "this passkey")?",
                isPresented: Binding(get: { flow.removing != nil }, set: { if !$0 { flow.cancelRemoval() } }), titleVisibility: .visible
            ) {
                Button("Remove", role: .destructive) { Task { await flow.confirmRemoval() } }
                Button("Cancel", role: .cancel) { flow.cancelRemoval() }
            } message: {
                Text("It stops signing you in on every device that has it.")
            }
            .refreshable { await flow.refresh() }
            .errorBanner(flow.errorMessage)
            .stepUpPrompt(flow.stepUp)
            .navigationTitle("Passkeys")
            .task { await flow.refresh() }
        }
    }

    #if DEBUG
        struct PasskeyListView_Previews: PreviewProvider {
            static var previews: some View {
                NavigationStack {
                    PasskeyListView(flow: PasskeyFlow(client: .sample(), authenticator: SamplePasskeys()))
                }
            }
        }
    #endif
#endif
