import ChatterKit
import ChatterUI
import SwiftUI

/// Password-less sign-in with an emailed code (F3), then chatterd's own web pages in a web view, signed
/// in as the app is, beside the account screen.
@main
struct WebViewApp: App {
    @State private var auth = AuthState(sessions: AppClient.shared.sessions)

    var body: some Scene {
        WindowGroup {
            Prepared {
                AuthGate(auth: auth) {
                    SignInScreen()
                } content: { _ in
                    SignedInTabs()
                }
            }
        }
    }
}
