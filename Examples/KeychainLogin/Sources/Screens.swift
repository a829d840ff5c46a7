import ChatterKit
import ChatterUI
import SwiftUI

/// The email and password form. It lives as long as the sign-in screen shows, so each sign-in starts
/// afresh (with the remembered email filled in).
struct SignInScreen: View {
    @State private var form = PasswordForm(client: AppClient.shared)

    var body: some View {
        NavigationStack {
            PasswordFormView(form: form)
                .navigationTitle("Sign In")
        }
    }
}

/// Who is signed in, and the account screen: sign out here or everywhere, delete the account.
struct SignedInScreen: View {
    let session: AuthSession
    @State private var account = AccountFlow(client: AppClient.shared)

    var body: some View {
        NavigationStack {
            AccountView(account: account)
                .safeAreaInset(edge: .top, spacing: 0) {
                    Label("Signed in as \(session.username)", systemImage: "person.crop.circle.fill")
                        .font(.headline)
                        .padding()
                        .frame(maxWidth: .infinity, alignment: .leading)
                        .background(.thinMaterial)
                }
        }
    }
}
