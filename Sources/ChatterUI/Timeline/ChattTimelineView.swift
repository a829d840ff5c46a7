#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The course app's timeline (F1): the chatts, oldest first, readable without signing in, and a
    /// composer whose post signs in first when there is no valid session, then completes the same post.
    /// `googleIDToken` is the app's Google Sign-In (ChatterUI does not depend on Google's SDK): it presents
    /// Google's sheet and returns the ID token, or throws (`CancellationError` when the user cancels).
    public struct ChattTimelineView: View {
        @Bindable var flow: ChattFlow
        let googleIDToken: @MainActor () async throws -> String

        /// A timeline over `flow`, signing in through `googleIDToken` when a post needs it.
        public init(flow: ChattFlow, googleIDToken: @escaping @MainActor () async throws -> String) {
            self.flow = flow
            self.googleIDToken = googleIDToken
        }

        public var body: some View {
            List {
                if let advisory = flow.advisory {
                    Text(advisory.message)
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                }
                ForEach(flow.chatts, id: \.id) { chatt in
                    ChattRowView(chatt: chatt)
                }
            }
            .refreshable { await flow.reload() }
            .safeAreaInset(edge: .bottom) { composer }
            .errorBanner(flow.errorMessage)
            .sheet(isPresented: signInRequested) {
                GoogleSignInSheet(flow: flow, idToken: googleIDToken)
            }
            .navigationTitle("Chatter")
            .task {
                await flow.launch()
                await flow.reload()
            }
        }

        private var composer: some View {
            HStack(alignment: .bottom) {
                TextField("Message", text: $flow.draft, axis: .vertical)
                    .lineLimit(1...5)
                Button {
                    Task { await flow.postDraft() }
                } label: {
                    Label("Post", systemImage: "paperplane.fill")
                        .labelStyle(.iconOnly)
                }
                .disabled(!flow.canPost)
                .overlay {
                    if flow.isPosting { ProgressView() }
                }
            }
            .padding()
            .background(.thinMaterial)
        }

        /// Shown while the flow waits for sign-in; swiping the sheet away cancels the sign-in.
        private var signInRequested: Binding<Bool> {
            Binding(get: { flow.showsSignInSheet }, set: { _ in flow.cancelSignIn() })
        }
    }

    /// One chatt: who, when, what.
    struct ChattRowView: View {
        let chatt: ChattRow

        var body: some View {
            VStack(alignment: .leading, spacing: 4) {
                HStack {
                    Text(chatt.name)
                        .font(.headline)
                    Spacer()
                    if let postedAt = chatt.postedAt {
                        Text(postedAt, style: .relative)
                            .font(.caption)
                            .foregroundStyle(.secondary)
                    }
                }
                Text(chatt.message)
            }
            .accessibilityElement(children: .combine)
        }
    }

    #if DEBUG
        struct ChattTimelineView_Previews: PreviewProvider {
            static var previews: some View {
                NavigationStack {
                    ChattTimelineView(flow: ChattFlow(client: .sample(signedIn: false), clientID: "preview"), googleIDToken: { "preview" })
                }
            }
        }
    #endif
#endif
