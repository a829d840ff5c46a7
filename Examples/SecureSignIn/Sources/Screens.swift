import ChatterKit
import ChatterUI
import SwiftUI

/// The email and password form. It lives as long as the sign-in screen shows.
struct SignInScreen: View {
    @State private var form = PasswordForm(client: AppClient.shared)

    var body: some View {
        NavigationStack {
            PasswordFormView(form: form)
                .navigationTitle("Sign In")
        }
    }
}

/// The user's signed-in devices, each of which can be ended, and the account screen. Both live as long
/// as this session.
struct SignedInTabs: View {
    @State private var sessions = SessionList(client: AppClient.shared)
    @State private var account = AccountFlow(client: AppClient.shared)

    var body: some View {
        TabView {
            NavigationStack {
                SessionsListView(list: sessions)
            }
            .tabItem { Label("Sessions", systemImage: "iphone") }
            NavigationStack {
                AccountView(account: account)
            }
            .tabItem { Label("Account", systemImage: "person.crop.circle") }
        }
    }
}
