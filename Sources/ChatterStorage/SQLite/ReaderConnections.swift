import ChatterCore
import SQLiteNIO
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

    package var next: SQLiteConnection { all[turn.add(1, ordering: .relaxed).oldValue % all.count] }
}
