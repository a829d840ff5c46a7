#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    /// The user's signed-in devices (F5), this one first, each with a button that ends it. Ending this
    /// device's own session signs the app out.
    public struct SessionsListView: View {
        let list: SessionList

        /// A list over `list`.
        public init(list: SessionList) {
            self.list = list
        }

        public var body: some View {
            List(list.rows) { row in
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
            .overlay {
                if list.isLoading && list.rows.isEmpty { ProgressView() }
            }
            .refreshable { await list.load() }
            .errorBanner(list.errorMessage)
            .navigationTitle("Sessions")
            .task { await list.load() }
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
