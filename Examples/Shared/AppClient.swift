import ChatterKit
import Foundation

/// The app's one `ChatterClient`, for the server Info.plist names (`CHATTER_SERVER_URL`, set in project.yml).
/// One client per server and store: two would each refresh the same session.
enum AppClient {
    static let shared = ChatterClient(api: ChatterAPI(baseURL: url(forInfoKey: "CHATTER_SERVER_URL")), store: store)
    /// The app's observable entry point over `shared`: the phase, "signed in?", sign-out. Put in the environment.
    @MainActor static let chatter = Chatter(client: shared)

    /// The Keychain: this device only, readable after the first unlock.
    static let store: any SecretStore = {
        #if canImport(Security)
            return KeychainStore(service: Bundle.main.bundleIdentifier ?? "ChatterExample")
        #else
            return MemoryStore()  // Linux, where CI type-checks this file; the app runs on Apple platforms only.
        #endif
    }()

    /// Clears what a previous install left in the Keychain (items outlive the app), once per install. Run it
    /// before anything reads the session.
    static func prepare() async {
        _ = try? await FirstRunGuard.prepare(store)
    }

    /// A string from Info.plist; a missing one is a mistake in project.yml, named here.
    static func string(forInfoKey key: String) -> String {
        guard let value = Bundle.main.object(forInfoDictionaryKey: key) as? String, !value.isEmpty else {
            fatalError("Info.plist has no \(key): set it in project.yml and run `xcodegen generate` again")
        }
        return value
    }

    static func url(forInfoKey key: String) -> URL {
        guard let url = URL(string: string(forInfoKey: key)) else { fatalError("Info.plist's \(key) is not a URL") }
        return url
    }
}
