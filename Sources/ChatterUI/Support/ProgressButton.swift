#if canImport(SwiftUI)
    import SwiftUI

    /// A form's main button: its title, and a spinner beside it while the action's request is on its way.
    struct ProgressButton: View {
        let title: String
        let isLoading: Bool
        let action: @MainActor () async -> Void

        var body: some View {
            Button {
                Task { await action() }
            } label: {
                HStack {
                    Text(title)
                    Spacer()
                    if isLoading { ProgressView() }
                }
            }
        }
    }
#endif
