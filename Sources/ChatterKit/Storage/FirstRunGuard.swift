import Foundation

/// Keychain items outlive the app on Apple platforms, but UserDefaults does not: a fresh install finds
/// no marker and removes what a previous install left, so it never silently signs in as someone else.
///
/// A missing marker is not always a fresh install. Before the first unlock since boot (iOS prewarms apps
/// then) UserDefaults reads as empty, and an app extension has defaults of its own. So the store is
/// cleared only when it can be read now, never from an extension, and the marker is set only once the
/// clearing succeeded.
public enum FirstRunGuard {
    /// The UserDefaults key whose presence says this install has been set up.
    public static let markerKey = "ChatterKit.installed"

    /// Clears `keys` on the first run of this install, then sets the marker. If the store cannot be
    /// cleared now (device locked, or not unlocked since boot), it throws `.unavailable` and the marker
    /// stays unset, so the next launch tries again. Pass the app group's defaults if the app and its
    /// extensions share a keychain access group.
    /// - Returns: whether this was the first run (and the store was cleared).
    @discardableResult
    public static func prepare(
        _ store: any SecretStore,
        keys: [String] = [
            StoreKey.session, StoreKey.sessionStamp, StoreKey.email, StoreKey.pendingAppleRegistration,
            // App Attest keys do not survive a reinstall; the keychain's record of one does.
            StoreKey.appAttestKey,
        ],
        defaults: UserDefaults = .standard, isAppExtension: Bool = Bundle.main.bundlePath.hasSuffix(".appex")
    ) async throws(StorageError) -> Bool {
        if defaults.bool(forKey: markerKey) || isAppExtension { return false }
        // Unreadable storage goes with unreadable defaults: what looks like a first run may not be one.
        try await store.checkAvailable()
        for key in keys { try await store.delete(key) }
        defaults.set(true, forKey: markerKey)
        return true
    }
}
