import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// "A refresh is under way", kept in the shared store while its request is out, so processes sharing the session
/// wait for what it stores instead of refreshing too. It replaces holding the turn's file lock across the request
/// (iOS kills an app suspended while it holds a lock in a shared container). It ends when the refresh does, or
/// after `lifetime` when its process was suspended or killed meanwhile.
struct RefreshLease: Codable, Sendable, Equatable {
    /// The `SessionManager` that took it (one per process and store).
    var owner: UUID
    /// When the others stop waiting for it.
    var until: Date
    /// The process that took it: a lease whose process has ended (a `chatter` command interrupted mid-refresh) is
    /// not waited for. Nil in a lease written without it.
    var process: Int32? = getpid()

    /// Longer than a refresh request takes (URLSession's default timeout is 60 s, but a refresh answers in well under
    /// a second); short enough that a suspended holder delays the others by little.
    static let lifetime: TimeInterval = 30

    /// Whether the others wait for it at `now`: until its end, and never for one that claims more than `lifetime`
    /// ahead (a clock set back since, or a lease no refresh could have written), which would make them wait forever.
    func holds(at now: Date) -> Bool {
        until > now && until <= now.addingTimeInterval(Self.lifetime) && (process.map(Self.isRunning) ?? true)
    }

    /// Whether process `pid` still runs: `kill(pid, 0)` sends nothing and fails with ESRCH only when there is no
    /// such process (EPERM, a sandbox refusing to say, counts as running).
    static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    static func read(from store: any SecretStore) async -> RefreshLease? {
        guard let data = (try? await store.read(StoreKey.refreshLease)) ?? nil else { return nil }
        return try? JSONDecoder().decode(RefreshLease.self, from: data)
    }

    func write(to store: any SecretStore) async throws {
        do {
            try await store.write(try JSONEncoder().encode(self), for: StoreKey.refreshLease)
        } catch let error as StorageError {
            throw ChatterError.storage(error)
        }
    }
}
