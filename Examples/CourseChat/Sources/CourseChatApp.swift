import ChatterKit
import ChatterUI
import SwiftUI

/// The course chat (F1): the timeline, readable without an account; posting signs in with Google first,
/// then completes the same post.
@main
struct CourseChatApp: App {
    /// `GIDClientID` is the iOS OAuth client ID that Google's SDK reads too; chatterd must list it.
    @State private var flow = ChattFlow(client: AppClient.shared, clientID: AppClient.string(forInfoKey: "GIDClientID"))

    var body: some Scene {
        WindowGroup {
            Prepared {
                NavigationStack {
                    ChattTimelineView(flow: flow, googleIDToken: GoogleIDToken.signIn)
                }
                .onOpenURL { url in GoogleIDToken.handle(url) }
            }
        }
    }
}
