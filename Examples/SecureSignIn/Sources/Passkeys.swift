import ChatterKit

#if canImport(UIKit)
    import UIKit
#else
    import AppKit
#endif

/// The app's passkeys: Face ID or Touch ID over the key window, through `PlatformPasskeyAuthenticator`. iOS and
/// macOS offer them only when the app's Associated Domains list `webcredentials:` and chatterd's relying party
/// ID, and chatterd serves the matching `apple-app-site-association` (README › Configure › Passkeys). On iOS the
/// sign-in screen's email field offers them above the keyboard too; on a Mac only "Sign in with a passkey" does,
/// and no sheet opens until it is clicked.
enum AppPasskeys {
    #if canImport(UIKit)
        @MainActor static let authenticator = PlatformPasskeyAuthenticator {
            UIApplication.shared.connectedScenes
                .compactMap { $0 as? UIWindowScene }
                .flatMap(\.windows)
                .first(where: \.isKeyWindow) ?? UIWindow(frame: .zero)
        }
    #else
        @MainActor static let authenticator = PlatformPasskeyAuthenticator {
            NSApplication.shared.keyWindow ?? NSWindow()
        }
    #endif

    /// A flow for one screen.
    @MainActor static func flow() -> PasskeyFlow {
        PasskeyFlow(client: AppClient.shared, authenticator: authenticator)
    }
}
