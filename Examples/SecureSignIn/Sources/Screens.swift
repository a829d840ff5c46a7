import ChatterKit
import ChatterUI
import SwiftUI

/// The email and password form, with "Sign in with a passkey" under it (and the passkeys offered above
/// the keyboard of the email field). Both live as long as the sign-in screen shows.
struct SignInScreen: View {
    @State private var form = PasswordForm(client: AppClient.shared)
    @State private var passkeys = AppPasskeys.flow()

    var body: some View {
        NavigationStack {
            VStack {
                PasswordFormView(form: form)
                PasskeySignInButton(flow: passkeys)
                    .padding()
            }
            .navigationTitle("Sign In")
        }
    }
}

/// The user's signed-in devices, each of which can be ended, and the account screen. Both live as long
/// as this session.
struct SignedInTabs: View {
    @State private var sessions = SessionList(client: AppClient.shared)
    @State private var account = AccountFlow(client: AppClient.shared)
    @State private var passkeys = AppPasskeys.flow()

    var body: some View {
        TabView {
            NavigationStack {
                SessionsListView(list: sessions)
            }
            .tabItem { Label("Sessions", systemImage: "iphone") }
            NavigationStack {
                PasskeyListView(flow: passkeys)
            }
            .tabItem { Label("Passkeys", systemImage: "person.badge.key") }
            NavigationStack {
                AccountView(account: account)
            }
            .tabItem { Label("Account", systemImage: "person.crop.circle") }
        }
    }
}
