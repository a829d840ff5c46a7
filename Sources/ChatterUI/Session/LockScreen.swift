#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The screen over a locked session (F5): Face ID, Touch ID, Optic ID or the passcode before the stored
    /// session is used. It asks once when it appears; the button asks again. A cancel leaves it locked and
    /// never signs out.
    public struct LockScreen: View {
        let gate: BiometricGate
        let reason: String

        /// A lock screen over `gate`; `reason` is what the system's prompt says.
        public init(gate: BiometricGate, reason: String = "Unlock your Chatter session") {
            self.gate = gate
            self.reason = reason
        }

        public var body: some View {
            VStack(spacing: 20) {
                Image(systemName: "lock.shield")
                    .font(.system(size: 56))
                    .foregroundStyle(.tint)
                Text("Chatter is locked")
                    .font(.title2.bold())
                Button {
                    Task { await gate.unlock(reason: reason) }
                } label: {
                    Label(gate.kind.unlockTitle, systemImage: gate.kind.systemImage)
                }
                .buttonStyle(.borderedProminent)
                if let message = gate.message {
                    Text(message)
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                }
            }
            .padding()
            .frame(maxWidth: .infinity, maxHeight: .infinity)
            .background(.background)
            .task { await gate.unlock(reason: reason) }
        }
    }

    /// Replaces the content with the lock screen while the gate is locked (the content leaves the view tree, so
    /// its tasks make no signed-in requests), covers it while the app is not active (the app switcher's
    /// snapshot shows nothing, and the content stays mounted beneath), and tells the gate when the app goes to the background and comes back, and
    /// what the auth state is.
    struct BiometricLock: ViewModifier {
        let gate: BiometricGate
        let auth: AuthState
        @Environment(\.scenePhase) private var scenePhase

        func body(content: Content) -> some View {
            ZStack {
                switch gate.screen {
                case .locked:
                    LockScreen(gate: gate)
                case .covered:
                    // Over the content, not instead of it: a glance at Control Center or a call keeps the app as it was.
                    content
                    Image(systemName: "lock.shield")
                        .font(.system(size: 56))
                        .foregroundStyle(.tint)
                        .frame(maxWidth: .infinity, maxHeight: .infinity)
                        .background(.background)
                case .content:
                    content
                }
            }
            .onChange(of: auth.phase, initial: true) { _, phase in
                gate.follow(phase)
            }
            .onChange(of: scenePhase) { _, phase in
                gate.scenePhaseChanged(isActive: phase == .active, isBackground: phase == .background, hasSession: auth.isSignedIn)
            }
        }
    }

    extension View {
        /// Locks this content behind `gate` while `auth` holds a session: at launch, and after the app spent
        /// longer than the gate's grace period in the background.
        public func biometricLock(_ gate: BiometricGate, auth: AuthState) -> some View {
            modifier(BiometricLock(gate: gate, auth: auth))
        }
    }

    #if DEBUG
        struct LockScreen_Previews: PreviewProvider {
            struct SampleFaceID: DeviceAuthenticator {
                func availableKind() -> BiometryKind { .faceID }
                func authenticate(reason: String) async -> AuthenticationOutcome { .cancelled }
            }

            static var previews: some View {
                LockScreen(gate: BiometricGate(authenticator: SampleFaceID()))
            }
        }
    #endif
#endif
