#if canImport(SwiftUI)
    import SwiftUI

    extension View {
        /// A red banner above the screen while `message` is set.
        func errorBanner(_ message: String?) -> some View {
            safeAreaInset(edge: .top, spacing: 0) {
                if let message {
                    Label(message, systemImage: "exclamationmark.triangle.fill")
                        .font(.callout)
                        .foregroundStyle(.white)
                        .padding(10)
                        .frame(maxWidth: .infinity, alignment: .leading)
                        .background(Color.red)
                        .accessibilityAddTraits(.isStaticText)
                }
            }
        }
    }

    /// A field's validation message under it, when there is one.
    struct FieldMessage: View {
        let text: String?

        init(_ text: String?) {
            self.text = text
        }

        var body: some View {
            if let text {
                Text(text)
                    .font(.footnote)
                    .foregroundStyle(.red)
            }
        }
    }
#endif
