#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The user's signed-in devices (F5), this one first, each with a button that ends it. Ending this
    /// device's own session signs the app out. Below them, the account's history: what changed how it signs
    /// in, newest first, so a passkey the user did not add is seen here as well as in the mail.
    public struct SessionsListView: View {
        let list: SessionList

        /// A list over `list`.
        public init(list: SessionList) {
            self.list = list
        }

        public var body: some View {
            List {
                Section("Sessions") {
                    ForEach(list.rows) { row in session(row) }
                }
                if !list.history.isEmpty {
                    Section("History") {
                        ForEach(list.history) { event in
                            VStack(alignment: .leading, spacing: 2) {
                                Text(event.title)
                                Text("\(event.device) · \(event.at.formatted(date: .abbreviated, time: .shortened))")
                                    .font(.caption)
                                    .foregroundStyle(.secondary)
                            }
                        }
                    }
                }
            }
            .overlay {
                if list.isLoading && list.rows.isEmpty { ProgressView() }
            }
            .refreshable { await list.load() }
            .errorBanner(list.errorMessage)
            .stepUpPrompt(list.stepUp)
            .navigationTitle("Sessions")
            .task { await list.load() }
        }

        private func session(_ row: SessionList.Row) -> some View {
            HStack {
                VStack(alignment: .leading, spacing: 2) {
                    HStack {
                        Text(row.device)
                            .font(.headline)
                        if row.isCurrent {
                            Text("This device")
                                .font(.caption)
                                .foregroundStyle(.secondary)
                        }
                    }
                    Text(row.detail)
                        .font(.caption)
                        .foregroundStyle(.secondary)
                }
                Spacer()
                Button(list.revokeTitle(for: row), role: .destructive) {
                    Task { await list.revoke(row) }
                }
                .buttonStyle(.borderless)
                .disabled(!list.canRevoke(row))
            }
        }
    }

    #if DEBUG
        struct SessionsListView_Previews: PreviewProvider {
            static var previews: some View {
                NavigationStack {
                    SessionsListView(list: SessionList(client: .sample()))
                }
            }
        }
    #endif
#endif
