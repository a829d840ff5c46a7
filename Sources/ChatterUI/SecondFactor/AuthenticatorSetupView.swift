#if canImport(SwiftUI) && canImport(CoreImage)
    import ChatterKit
    import SwiftUI

    /// Adding an authenticator app: a QR code to scan (or the key to type), the app's first code, then the
    /// ten recovery codes, shown once. The steps are `AuthenticatorSetup`'s.
    public struct AuthenticatorSetupView: View {
        @Bindable var setup: AuthenticatorSetup

        /// The setup over `setup`.
        public init(setup: AuthenticatorSetup) {
            self.setup = setup
        }

        public var body: some View {
            Form {
                switch setup.step {
                case .idle:
                    Section {
                        Text("With an authenticator app, a stolen password or mailbox is not enough to sign in as you.")
                        ProgressButton(title: "Add an Authenticator App", isLoading: setup.isLoading) { await setup.start() }
                    }
                case .scanning:
                    Section {
                        if let payload = setup.qrPayload { QRCodeImage(payload: payload) }
                        if let secret = setup.secret { Text("Or enter this key: \(secret)") }
                    } header: {
                        Text("Scan with your authenticator app")
                    }
                    Section {
                        TextField("6-digit code", text: $setup.code)
                            .oneTimeCodeEntry()
                            .onSubmit { Task { await setup.confirm() } }
                        ProgressButton(title: "Turn On", isLoading: setup.isLoading) { await setup.confirm() }
                            .disabled(!setup.canConfirm)
                    } header: {
                        Text("Enter the code the app shows")
                    }
                case .enabled(let codes):
                    Section {
                        ForEach(codes, id: \.self) { code in Text(code) }
                    } header: {
                        Text("Your recovery codes")
                    } footer: {
                        Text("Each signs you in once if you lose the device with the app. Keep them somewhere safe: they are shown only now.")
                    }
                }
            }
            .errorBanner(setup.errorBanner)
        }
    }
#endif
