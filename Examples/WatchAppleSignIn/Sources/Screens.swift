import ChatterKit
import ChatterUI
import SwiftUI

/// Apple's button. The flow makes each request's nonce and keeps the name Apple gives only on the first
/// sign-in until chatterd confirms it (the view sends a kept one again when it appears).
struct SignInScreen: View {
    @State private var flow = AppleSignInFlow(client: AppClient.shared)

    var body: some View {
        NavigationStack {
            AppleSignInView(flow: flow)
                .navigationTitle("Chatter")
        }
    }
}

/// The signed-in name, and a way out to try again.
struct SignedInScreen: View {
    let session: AuthSession
    @State private var account = AccountFlow(client: AppClient.shared)

    var body: some View {
        VStack(spacing: 12) {
            Image(systemName: "person.crop.circle.fill")
                .font(.largeTitle)
            Text(session.username)
                .font(.headline)
                .multilineTextAlignment(.center)
            Button("Sign Out") {
                Task { await account.signOut() }
            }
            .disabled(!account.canAct)
        }
    }
}
