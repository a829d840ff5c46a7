import ChatterCore
import Synchronization

/// The read-only connections, taken in turn: one connection answers one query at a time, and several
/// let reads use every thread of the pool while WAL lets them run beside the writer.
package final class ReaderConnections: Sendable {
    package let all: [SQLiteConnection]
    private let turn = Atomic<Int>(0)

    package init(_ connections: [SQLiteConnection]) {
        precondition(!connections.isEmpty)
        all = connections
    }

    /// The next in turn that is idle, or the next in turn when none is: a statement runs on its caller's
    /// thread, so one waiting for a busy connection would hold that thread.
    package var next: SQLiteConnection {
        let start = turn.add(1, ordering: .relaxed).oldValue
        for offset in 0..<all.count {
            let connection = all[(start &+ offset) % all.count]
            if !connection.isRunning { return connection }
        }
        return all[start % all.count]
    }
}
