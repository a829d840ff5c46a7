import ChatterKit
import ChatterUI
import SwiftUI

/// Sign in with Apple on Apple Watch (F4): Apple's button until chatterd answers with a session, then the
/// signed-in name.
@main
struct WatchAppleSignInApp: App {
    @State private var auth = AuthState(sessions: AppClient.shared.sessions)

    var body: some Scene {
        WindowGroup {
            Prepared {
                AuthGate(auth: auth) {
                    SignInScreen()
                } content: { session in
                    SignedInScreen(session: session)
                }
            }
        }
    }
}
