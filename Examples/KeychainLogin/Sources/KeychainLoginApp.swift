import ChatterKit
import ChatterUI
import SwiftUI

/// Email and password sign-in (F2), skipped when the Keychain holds a session: `AuthGate` shows the form
/// or the signed-in screen by the auth state.
@main
struct KeychainLoginApp: App {
    @State private var chatter = AppClient.chatter

    var body: some Scene {
        WindowGroup {
            Prepared {
                AuthGate(chatter) {
                    SignInScreen()
                } content: { session in
                    SignedInScreen(session: session)
                }
            }
            .environment(chatter)  // any view reads it: @Environment(Chatter.self)
        }
    }
}
