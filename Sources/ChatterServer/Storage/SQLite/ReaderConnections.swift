import SQLiteNIO
import Synchronization

/// The read-only connections, taken in turn: one connection answers one query at a time, and several
/// let reads use every thread of the pool while WAL lets them run beside the writer.
final class ReaderConnections: Sendable {
    let all: [SQLiteConnection]
    private let turn = Atomic<Int>(0)

    init(_ connections: [SQLiteConnection]) {
        precondition(!connections.isEmpty)
        all = connections
    }

    var next: SQLiteConnection { all[turn.add(1, ordering: .relaxed).oldValue % all.count] }
}
