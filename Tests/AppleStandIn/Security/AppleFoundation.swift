// Foundation API that exists only on Apple's systems and that ChatterKit's Apple-only files (compiled where
// Security is) call. Declared with Apple's documented signatures; nothing here runs.

import Foundation

extension ProcessInfo {
    /// https://developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
    /// — runs `block` on a background queue; `expired` true means the process is about to be suspended.
    public func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) { fatalError() }
}

extension FileManager {
    /// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    /// — the shared container of an app group the app's entitlement lists, or nil.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { fatalError() }
}
