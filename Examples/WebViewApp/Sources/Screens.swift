import ChatterKit
import ChatterUI
import SwiftUI

/// The email step, then the 6-digit code. The flow lives as long as the sign-in screen shows.
struct SignInScreen: View {
    @State private var flow = EmailCodeFlow(client: AppClient.shared)

    var body: some View {
        NavigationStack {
            EmailCodeView(flow: flow)
                .navigationTitle("Sign In")
        }
    }
}

/// chatterd's web pages (the timeline, posting, the account pages), signed in with a one-time link from
/// the app's session, and the app's own account screen. Both live as long as this session.
struct SignedInTabs: View {
    @State private var web = WebSignIn(client: AppClient.shared)
    @State private var account = AccountFlow(client: AppClient.shared)

    var body: some View {
        TabView {
            WebSessionView(web: web)
                .tabItem { Label("Chatter", systemImage: "globe") }
            NavigationStack {
                AccountView(account: account)
            }
            .tabItem { Label("Account", systemImage: "person.crop.circle") }
        }
    }
}
