import ChatterKit
import UIKit

/// The app's passkeys: Face ID over the key window, through `PlatformPasskeyAuthenticator`. iOS offers
/// them only when the app's Associated Domains list `webcredentials:` and chatterd's relying party ID,
/// and chatterd serves the matching `apple-app-site-association` (README › Configure › Passkeys).
enum AppPasskeys {
    @MainActor static let authenticator = PlatformPasskeyAuthenticator {
        UIApplication.shared.connectedScenes
            .compactMap { $0 as? UIWindowScene }
            .flatMap(\.windows)
            .first(where: \.isKeyWindow) ?? UIWindow(frame: .zero)
    }

    /// A flow for one screen.
    @MainActor static func flow() -> PasskeyFlow {
        PasskeyFlow(client: AppClient.shared, authenticator: authenticator)
    }
}
