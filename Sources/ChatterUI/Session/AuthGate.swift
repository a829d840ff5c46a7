#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The root of a signed-in app (F5): nothing until storage has been read, then the sign-in screen or the
    /// app's content by the auth state, with a notice when a session ended without the user asking. It
    /// follows `AuthState` for as long as it is shown.
    public struct AuthGate<SignIn: View, Content: View>: View {
        let auth: AuthState
        let signIn: () -> SignIn
        let content: (AuthSession) -> Content
        /// What follows the session while the gate is shown: `Chatter.run()` (with the launch's Sign in with Apple
        /// check) or `AuthState.run()`.
        let follow: @MainActor () async -> Void
        @Environment(\.scenePhase) private var scenePhase

        /// Shows `signIn` while signed out or expired, and `content` with the session while signed in.
        public init(auth: AuthState, @ViewBuilder signIn: @escaping () -> SignIn, @ViewBuilder content: @escaping (AuthSession) -> Content) {
            self.auth = auth
            self.signIn = signIn
            self.content = content
            follow = { await auth.run() }
        }

        /// The same over a `Chatter`: `AuthGate(chatter) { SignIn() } content: { session in … }`. It runs `chatter.run()`,
        /// so a session from Sign in with Apple whose authorization Apple revoked is signed out at launch. With `lock`
        /// (the gate `.biometricLock(_:auth:)` shows), a stored session is read once the lock is open: one Face ID
        /// prompt at launch, not one for the Keychain and one for the lock.
        public init(
            _ chatter: Chatter, lock: BiometricGate? = nil, @ViewBuilder signIn: @escaping () -> SignIn,
            @ViewBuilder content: @escaping (AuthSession) -> Content
        ) {
            auth = chatter.auth
            self.signIn = signIn
            self.content = content
            follow = { await chatter.run(unlockingWith: lock) }
        }

        public var body: some View {
            Group {
                switch auth.phase {
                case .starting:
                    ProgressView()
                case .signedIn(let session):
                    content(session)
                case .signedOut, .expired:
                    signIn()
                case .storageUnavailable:
                    Label(auth.notice ?? "Unlock this device to continue.", systemImage: "lock")
                }
            }
            .safeAreaInset(edge: .top, spacing: 0) {
                if let notice = auth.notice {
                    Text(notice)
                        .font(.footnote)
                        .padding(8)
                        .frame(maxWidth: .infinity)
                        .background(.thinMaterial)
                }
            }
            .task { await follow() }
            .onChange(of: scenePhase) { _, phase in
                if phase == .active { Task { await auth.appBecameActive() } }
            }
        }
    }

    #if DEBUG
        struct AuthGate_Previews: PreviewProvider {
            static var previews: some View {
                let client = ChatterClient.sample()
                AuthGate(auth: AuthState(sessions: client.sessions)) {
                    Text("Sign in")
                } content: { session in
                    Text("Signed in as \(session.username)")
                }
            }
        }
    #endif
#endif
