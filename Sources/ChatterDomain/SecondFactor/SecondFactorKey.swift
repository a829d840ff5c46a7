import ChatterCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key authenticator secrets are sealed under (`SecretBox`), in a file of its own beside the database,
/// never in it: `DATA_DIR/second-factor.key` by default, made on first start (32 random bytes, written as
/// hex, readable by chatterd's user alone). Every instance sharing a database must be given the same file.
public enum SecondFactorKey {
    /// The key in `path`. The default file (`create`) is made when missing, linked into place whole (two instances
    /// starting on one data directory agree on one key) and with mode 0600 from its first byte; a file an
    /// operator named (`--second-factor-key`) must exist, since a key made in place of a mistyped one
    /// would open no secret sealed before.
    public static func ensure(at path: String, create: Bool = true) throws -> [UInt8] {
        if !FileManager.default.fileExists(atPath: path) {
            guard create else { throw ConfigurationError("--second-factor-key: there is no key file at \(path)") }
            let key = SecureRandom.bytes(SecretBox.keyBytes)
            let hex = Array((Hex.encode(key) + "\n").utf8)
            // Written whole to a file of this process's own, then linked into place: another instance starting at
            // the same moment sees no key file or a complete one, never one still being written.
            let temporary = path + ".\(getpid()).\(UUID().uuidString).tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw ConfigurationError("cannot create the second-factor key beside \(path): errno \(errno)") }
            defer { unlink(temporary) }
            let written = write(fd, hex, hex.count) == hex.count && fsync(fd) == 0
            close(fd)
            guard written else { throw ConfigurationError("cannot write the second-factor key to \(path): errno \(errno)") }
            if link(temporary, path) == 0 { return key }
            // Another instance linked its key first: read theirs.
            guard errno == EEXIST else { throw ConfigurationError("cannot create the second-factor key at \(path): errno \(errno)") }
        }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = Hex.decode(text), key.count == SecretBox.keyBytes else {
            throw ConfigurationError("\(path) must hold \(SecretBox.keyBytes) bytes as \(SecretBox.keyBytes * 2) hex digits")
        }
        return key
    }
}
