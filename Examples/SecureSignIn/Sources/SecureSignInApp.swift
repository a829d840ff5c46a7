import ChatterKit
import ChatterUI
import SwiftUI

#if os(iOS)
    import UIKit
#endif

/// A signed-in app behind Face ID or Touch ID (F5): email and password sign-in, then the sessions and
/// the account, locked at launch and after five minutes in the background while a session is stored.
@main
struct SecureSignInApp: App {
    @State private var chatter = AppClient.chatter
    @State private var gate = BiometricGate(authenticator: LocalAuthenticator())

    var body: some Scene {
        WindowGroup {
            Prepared {
                // The lock wraps the gate, not only the signed-in content: it must see the session the app
                // launched with (which locks) apart from a sign-in made here (which does not).
                // `lock:` reads the stored session once the lock is open: one Face ID prompt at launch.
                AuthGate(chatter, lock: gate) {
                    SignInScreen()
                } content: { _ in
                    SignedInTabs()
                }
                .biometricLock(gate, auth: chatter.auth)
                #if os(iOS)
                    // Launched before the first unlock (iOS prewarms apps), the Keychain cannot be read yet:
                    // read the session again once it can.
                    .onReceive(NotificationCenter.default.publisher(for: UIApplication.protectedDataDidBecomeAvailableNotification)) { _ in
                        Task { await chatter.auth.retryStorage() }
                    }
                #endif
            }
            .environment(chatter)  // any view reads it: @Environment(Chatter.self)
        }
    }
}
