#if canImport(SwiftUI) && canImport(CoreImage)
    import ChatterKit
    import SwiftUI

    /// The account's authenticator app, by `AuthenticatorSetup`'s step: add one (a QR code to scan from another
    /// device, or on this phone a link that opens the authenticator, or the key to copy), its first code, then the
    /// ten recovery codes to copy or share until "I Saved Them"; once on, new recovery codes or turning it off.
    public struct AuthenticatorSetupView: View {
        @Bindable var setup: AuthenticatorSetup

        /// The setup over `setup`, read as it appears.
        public init(setup: AuthenticatorSetup) {
            self.setup = setup
        }

        public var body: some View {
            Form {
                // Every step has its way forward here; a step added to `AuthenticatorSetup.Step` fails to compile.
                switch setup.step {
                case .loading:
                    ProgressView()
                case .off:
                    Section {
                        Text("With an authenticator app, a stolen password or mailbox is not enough to sign in as you.")
                        ProgressButton(title: "Add an Authenticator App", isLoading: setup.isLoading) { await setup.start() }
                            .disabled(setup.isLoading)
                    }
                case .scanning:
                    scanning
                case .showingCodes(let codes):
                    recoveryCodes(codes)
                case .on(let left):
                    on(left)
                }
            }
            .errorBanner(setup.errorBanner)
            .stepUpPrompt(setup.stepUp)
            .navigationTitle("Authenticator App")
            .task { await setup.load() }
        }

        @ViewBuilder private var scanning: some View {
            Section {
                if let url = setup.keyURL {
                    // On this phone: the authenticator app installed here takes the key from the link.
                    Link("Open in Your Authenticator App", destination: url)
                }
                if let payload = setup.qrPayload { QRCodeImage(payload: payload) }
                if let secret = setup.secret {
                    Text(secret)
                        .font(.body.monospaced())
                        .textSelection(.enabled)
                    ShareLink("Copy or Share the Key", item: secret.replacingOccurrences(of: " ", with: ""))
                }
            } header: {
                Text("Add the key to your authenticator app")
            } footer: {
                Text("Scan the code from another device, open the link on this one, or type the key.")
            }
            Section {
                TextField("6-digit code", text: $setup.code)
                    .codeEntry(.digits)
                    .onSubmit { Task { await setup.confirm() } }
                ProgressButton(title: "Turn On", isLoading: setup.isLoading) { await setup.confirm() }
                    .disabled(!setup.canConfirm)
                Button("Cancel") { setup.cancelAdding() }
                    .disabled(setup.isLoading)
            } header: {
                Text("Enter the code the app shows")
            }
        }

        private func recoveryCodes(_ codes: [String]) -> some View {
            Section {
                ForEach(codes, id: \.self) { code in
                    Text(code)
                        .font(.body.monospaced())
                        .textSelection(.enabled)
                }
                if let text = setup.recoveryCodesText {
                    ShareLink("Copy or Share the Codes", item: text)
                }
                Button("I Saved Them") { setup.savedRecoveryCodes() }
            } header: {
                Text("Your recovery codes")
            } footer: {
                Text("Each signs you in once if you lose the device with the app. Keep them somewhere safe: they are shown only now.")
            }
        }

        private func on(_ left: Int) -> some View {
            Section {
                Text("On. \(left) recovery codes left.")
                TextField(setup.code.contains(where: \.isLetter) ? "Recovery code" : "Code from the app", text: $setup.code)
                    .codeEntry(CodeKeyboard.forSecondFactor(setup.code, recovery: false))
                ProgressButton(title: "New Recovery Codes", isLoading: setup.isLoading) { await setup.newRecoveryCodes() }
                    .disabled(!setup.canChange)
                ProgressButton(title: "Turn Off", isLoading: setup.isLoading) { await setup.turnOff() }
                    .disabled(!setup.canChange)
            } header: {
                Text("Authenticator app")
            } footer: {
                Text("New recovery codes and turning it off each take a code from the app, or a recovery code.")
            }
        }
    }

    #if DEBUG
        struct AuthenticatorSetupView_Previews: PreviewProvider {
            static var previews: some View {
                NavigationStack {
                    AuthenticatorSetupView(setup: AuthenticatorSetup(client: .sample()))
                }
            }
        }
    #endif
#endif
