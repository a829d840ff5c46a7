#if canImport(Security)
    import Foundation

    extension FileLockCoordinator {
        /// Turns taken through a lock file in the shared container of the app group `identifier` (`group.…`), which
        /// the app and each extension list in their App Groups entitlement; nil when this process has no such
        /// container. Pass it to `ChatterClient` in the app and in every extension that uses the session.
        public static func appGroup(_ identifier: String) -> FileLockCoordinator? {
            guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier) else { return nil }
            return FileLockCoordinator(path: container.appendingPathComponent("ChatterKit.session.lock").path)
        }
    }
#endif
