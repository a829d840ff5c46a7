import Foundation

/// Keychain items outlive the app on Apple platforms, but UserDefaults does not: a fresh install finds
/// no marker and removes what a previous install left, so it never silently signs in as someone else.
public enum FirstRunGuard {
    public static let markerKey = "ChatterKit.installed"

    /// Clears `keys` on the first run of this install, then sets the marker. If the store cannot be
    /// cleared now (device locked), the marker stays unset so the next launch tries again.
    /// - Returns: whether this was the first run.
    @discardableResult
    public static func prepare(
        _ store: any SecretStore, keys: [String] = [StoreKey.session, StoreKey.email, StoreKey.pendingAppleRegistration],
        defaults: UserDefaults = .standard
    ) async throws(StorageError) -> Bool {
        if defaults.bool(forKey: markerKey) { return false }
        for key in keys { try await store.delete(key) }
        defaults.set(true, forKey: markerKey)
        return true
    }
}
