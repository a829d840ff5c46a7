#if canImport(SwiftUI)
    import ChatterKit
    import SwiftUI

    // Keyboard and autofill hints exist on iOS and visionOS only. On Linux, where CI type-checks these views
    // against a stand-in of SwiftUI, only the portable branch is checked; the iOS branch is parsed.
    extension View {
        /// An email field: the email keyboard, no capitals or corrections, the Keychain's username autofill.
        func emailEntry() -> some View {
            #if os(iOS) || os(visionOS)
                return keyboardType(.emailAddress).textInputAutocapitalization(.never).autocorrectionDisabled().textContentType(.username)
            #else
                return autocorrectionDisabled()
            #endif
        }

        /// A password field: the Keychain's password autofill, or its strong-password suggestion for a new one.
        func passwordEntry(new: Bool) -> some View {
            #if os(iOS) || os(visionOS)
                return textInputAutocapitalization(.never).autocorrectionDisabled().textContentType(new ? .newPassword : .password)
            #else
                return autocorrectionDisabled()
            #endif
        }

        /// A code field on `keyboard`: the number pad for digits, or capitals and digits for a recovery code; the code
        /// from Messages or Mail offered above the keyboard.
        func codeEntry(_ keyboard: CodeKeyboard) -> some View {
            #if os(iOS) || os(visionOS)
                return keyboardType(keyboard == .digits ? .numberPad : .asciiCapable).textInputAutocapitalization(.characters)
                    .autocorrectionDisabled().textContentType(.oneTimeCode)
            #else
                return autocorrectionDisabled()
            #endif
        }

        /// A 6-digit code field: the number pad, and the code from Messages or Mail offered above the keyboard.
        func oneTimeCodeEntry() -> some View {
            #if os(iOS) || os(visionOS)
                return keyboardType(.numberPad).textContentType(.oneTimeCode)
            #else
                return autocorrectionDisabled()
            #endif
        }
    }
#endif
