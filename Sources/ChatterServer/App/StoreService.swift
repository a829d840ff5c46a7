import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import Logging
import ServiceLifecycle

/// Owns the store for the server's lifetime: purges expired sessions and stale records periodically and closes the
/// database after the HTTP server has drained (services stop in reverse order of start).
struct StoreService: Service {
    let store: any ChatterStore
    let purgeInterval: Duration
    let lifetimes: SessionLifetimes
    /// Days the audit log keeps an event; nil keeps every one.
    var auditRetentionDays: Int? = nil
    /// Revokes the Apple tokens of accounts deleted since the last pass (or while Apple was unreachable).
    var appleTokens: AppleTokens? = nil
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let instant = now()
                let purged = try await store.purgeExpiredSessions(at: instant, lifetimes: lifetimes)
                if purged > 0 { logger.info("purged expired sessions", metadata: ["count": "\(purged)"]) }
                try await store.purgeStaleRecords(Self.cutoffs(at: instant, auditRetentionDays: auditRetentionDays))
            } catch {
                logger.warning("session purge failed", metadata: ["error": "\(error)"])
            }
            await appleTokens?.revokePending()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: purgeInterval) }
        }
        // Closing must happen even when the service group is cancelled rather than shut down gracefully,
        // so it runs in a task of its own that the cancellation does not reach.
        try await Task { [store] in try await store.close() }.value
        logger.info("database closed")
    }
}

extension StoreService {
    /// Rate-limit windows are at most a day; a day's margin keeps every live counter. Hand-offs go at
    /// expiry, device tokens after their lifetime, audit events after the retention period. App Attest keys
    /// go 30 days after an attestation no sign-in used, or 400 days after their last sign-in: ChatterKit asserts
    /// right after attesting, and a key purged from an install still in use is replaced at its next sign-in.
    static func cutoffs(at now: Date, auditRetentionDays: Int?) -> StaleCutoffs {
        StaleCutoffs(
            now: now, counters: now.addingTimeInterval(-2 * 86_400), deviceTokens: now.addingTimeInterval(-DeviceTokens.lifetime),
            audit: auditRetentionDays.map { now.addingTimeInterval(-Double($0) * 86_400) },
            unusedAppAttestKeys: now.addingTimeInterval(-30 * 86_400), idleAppAttestKeys: now.addingTimeInterval(-400 * 86_400))
    }
}
