import ChatterKit
import ChatterUI
import SwiftUI

/// Password-less sign-in with an emailed code (F3), then chatterd's own web pages in a web view, signed
/// in as the app is, beside the account screen.
@main
struct WebViewApp: App {
    @State private var chatter = AppClient.chatter

    var body: some Scene {
        WindowGroup {
            Prepared {
                AuthGate(chatter) {
                    SignInScreen()
                } content: { _ in
                    SignedInTabs()
                }
            }
            .environment(chatter)  // any view reads it: @Environment(Chatter.self)
        }
    }
}
