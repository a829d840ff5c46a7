import Foundation

/// The best secret store this machine has: the Keychain on Apple platforms; on Linux the desktop keyring
/// when one answers, otherwise private files, with a warning the first time, since a file is only as
/// safe as the user's home directory.
public enum DefaultStore {
    /// `warnedMarker`: a file whose presence means the fallback warning was said already (a tool keeping
    /// sessions for several servers passes one path for all, so the warning comes once per machine); without
    /// it, the warning comes when `fallbackDirectory` is first created.
    public static func make(
        service: String, fallbackDirectory: String, warnedMarker: String? = nil, warn: (@Sendable (String) -> Void)? = nil
    ) async -> any SecretStore {
        #if canImport(Security)
            return KeychainStore(service: service)
        #elseif os(Linux)
            return await make(
                keyring: SecretServiceStore(service: service), fallbackDirectory: fallbackDirectory, warnedMarker: warnedMarker,
                warn: warn ?? standardError)
        #else
            let warn = warn ?? standardError
            warn("warning: no secure store on this platform; keeping the session in \(fallbackDirectory) (readable only by you)")
            return FileStore(directory: fallbackDirectory)
        #endif
    }
}

#if os(Linux)
    extension DefaultStore {
        static func make(
            keyring: SecretServiceStore, fallbackDirectory: String, warnedMarker: String? = nil, warn: @Sendable (String) -> Void
        ) async -> any SecretStore {
            if await keyring.isReachable() { return keyring }
            // Said once, not on every run, so the warning is read rather than skipped.
            if !FileManager.default.fileExists(atPath: warnedMarker ?? fallbackDirectory) {
                warn("warning: no desktop keyring is reachable; keeping sessions in private files under \(fallbackDirectory) (readable only by you)")
                if let warnedMarker { Self.mark(warnedMarker) }
            }
            return FileStore(directory: fallbackDirectory)
        }

        private static func mark(_ path: String) {
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            _ = FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600])
        }
    }
#endif

private let standardError: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
