import SwiftUI

/// Shows `content` once `AppClient.prepare()` has run (a spinner until then), so nothing reads the session
/// before the Keychain left by an earlier install is cleared.
struct Prepared<Content: View>: View {
    @ViewBuilder let content: () -> Content
    @State private var isPrepared = false

    var body: some View {
        if isPrepared {
            content()
        } else {
            ProgressView()
                .task {
                    await AppClient.prepare()
                    isPrepared = true
                }
        }
    }
}
