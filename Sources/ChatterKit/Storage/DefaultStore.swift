import Foundation

/// The best secret store this machine has: the Keychain on Apple platforms; on Linux the desktop keyring
/// when one answers, otherwise private files, with a warning the first time, since a file is only as
/// safe as the user's home directory.
public enum DefaultStore {
    public static func make(
        service: String, fallbackDirectory: String, warn: (@Sendable (String) -> Void)? = nil
    ) async -> any SecretStore {
        #if canImport(Security)
        return KeychainStore(service: service)
        #elseif os(Linux)
        return await make(keyring: SecretServiceStore(service: service), fallbackDirectory: fallbackDirectory, warn: warn ?? standardError)
        #else
        let warn = warn ?? standardError
        warn("warning: no secure store on this platform; keeping the session in \(fallbackDirectory) (readable only by you)")
        return FileStore(directory: fallbackDirectory)
        #endif
    }
}

#if os(Linux)
extension DefaultStore {
    static func make(keyring: SecretServiceStore, fallbackDirectory: String, warn: @Sendable (String) -> Void) async -> any SecretStore {
        if await keyring.isReachable() { return keyring }
        // Said when the files are first used, not on every run, so the warning is read rather than skipped.
        if !FileManager.default.fileExists(atPath: fallbackDirectory) {
            warn("warning: no desktop keyring is reachable; keeping the session in \(fallbackDirectory) (readable only by you)")
        }
        return FileStore(directory: fallbackDirectory)
    }
}
#endif

private let standardError: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
