import ChatterKit
import ChatterUI
import SwiftUI

/// Sign in with Apple on Apple Watch (F4): Apple's button until chatterd answers with a session, then the
/// signed-in name.
@main
struct WatchAppleSignInApp: App {
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
