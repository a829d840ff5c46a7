// Copied from Tests/ChatterServerTests/Support (test targets cannot share files); keep the two in step.
import Foundation
import Synchronization

/// A clock tests move by hand, so expiry and cache lifetimes are exact rather than slept for.
final class TestClock: Sendable {
    private let instant: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        instant = Mutex(start)
    }

    var now: Date { instant.withLock { $0 } }
    var function: @Sendable () -> Date { { self.now } }

    func advance(by seconds: Double) {
        instant.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    func set(_ date: Date) {
        instant.withLock { $0 = date }
    }
}
