import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lets the processes that share one stored session take turns with it: an app and its widget or share
/// extension reading one keychain access group, or several terminal clients one directory. While one holds
/// the turn it reads the stored session, refreshes it if nobody did and stores the result; the others wait,
/// then read what it stored instead of presenting a refresh token it has retired.
public protocol SessionCoordinator: Sendable {
    /// Runs `body` while no other process sharing the session runs its own. Throws `SessionLockUnavailable`
    /// when the turn cannot be had (then `body` has not run), and whatever `body` throws otherwise.
    func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}

/// The turn could not be had: the lock file cannot be opened or locked, the wait ran out, or the waiting task
/// was cancelled. Nothing was done; a refresh is not attempted without its turn.
public struct SessionLockUnavailable: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for a log.
    public let description: String
}

/// Turns taken with an advisory lock (`flock`) on a file every process can reach: in an app group's container
/// on Apple platforms (`SessionCoordinator.appGroup(_:)`), beside a `FileStore` on Linux. The system drops the
/// lock of a process that dies, so a crash never leaves the others waiting.
public struct FileLockCoordinator: SessionCoordinator {
    /// The lock file; created (mode 0600, in a directory created 0700 if missing) at the first turn.
    public let path: String
    /// How long a turn may be waited for before `exclusively` gives up with `SessionLockUnavailable`.
    public let timeout: Duration

    /// A coordinator over the lock file at `path`.
    public init(path: String, timeout: Duration = .seconds(30)) {
        self.path = path
        self.timeout = timeout
    }

    /// Runs `body` holding the lock, waiting (polling every 5 ms) while another process holds it.
    public func exclusively<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SessionLockUnavailable(description: "cannot open the session lock \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }  // closing drops the lock too
        let deadline = ContinuousClock.now + timeout
        // Polled rather than blocking: a blocked cooperative thread would stall every task on it.
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw SessionLockUnavailable(description: "cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            guard ContinuousClock.now < deadline else {
                throw SessionLockUnavailable(description: "another process has held the session lock \(path) too long")
            }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                throw SessionLockUnavailable(description: "cancelled while waiting for the session lock")
            }
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}
