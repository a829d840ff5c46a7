import Foundation
import Synchronization

/// A clock tests move by hand, so expiry and cache lifetimes are exact rather than slept for.
public final class TestClock: Sendable {
    private let instant: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        instant = Mutex(start)
    }

    public var now: Date { instant.withLock { $0 } }
    public var function: @Sendable () -> Date { { self.now } }

    public func advance(by seconds: Double) {
        instant.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        instant.withLock { $0 = date }
    }
}
