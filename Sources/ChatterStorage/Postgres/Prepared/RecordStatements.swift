import ChatterCore
import Foundation
import PostgresNIO

// Statements most requests also run: a rate limit's count, an audit event, the timeline's version and a
// batch of posts.

/// Counts one more attempt in a fixed window, starting a new window once the old one has passed.
package struct HitRateLimit: PreparedStatement {
    package static let sql = """
        INSERT INTO rate_limits AS r (key, window_start, count) VALUES ($1, $2, 1)
        ON CONFLICT (key) DO UPDATE SET
            count = CASE WHEN r.window_start <= $3 THEN 1 ELSE r.count + 1 END,
            window_start = CASE WHEN r.window_start <= $3 THEN $2 ELSE r.window_start END
        RETURNING count
        """
    package static let bindingDataTypes: [PostgresDataType] = [.text, .timestamptz, .timestamptz]
    package var key: String
    package var now: Date
    package var cutoff: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 3)
        binds.append(key)
        binds.append(now)
        binds.append(cutoff)
        return binds
    }
}

package struct RecordAuditEvent: PreparedStatement {
    package static let sql = """
        INSERT INTO audit_events (at, event, user_id, method, ip, user_agent, detail, actor) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        """
    package static let bindingDataTypes: [PostgresDataType] = [.timestamptz, .text, .uuid, .text, .text, .text, .text, .text]
    package var event: AuditEvent

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 8)
        binds.append(event.at)
        binds.append(event.event)
        binds.append(event.userID)
        binds.append(event.method)
        binds.append(event.client.ip)
        binds.append(event.client.userAgent)
        binds.append(event.detail)
        binds.append(event.actor?.description)
        return binds
    }
}

package struct TimelineVersion: PreparedStatement {
    package static let sql = "SELECT n FROM timeline_version"
    package static let bindingDataTypes: [PostgresDataType] = []

    package func makeBindings() -> PostgresBindings { PostgresBindings() }
}

/// A batch of posts in the order submitted (their `seq` order); the timeline's version moves in the
/// posts' own transaction, so a stamp read after their commit sees it. A post's author is text, empty for
/// none: an array of optional UUIDs has no encoding.
package struct InsertChatts: PreparedStatement {
    package static let sql = """
        WITH added AS (
            INSERT INTO chatts (id, user_id, name, message, created_at)
            SELECT v.id, NULLIF(v.user_id, '')::uuid, v.name, v.message, v.created_at
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS v(id, user_id, name, message, created_at, n)
            ORDER BY v.n
            ON CONFLICT (id) DO NOTHING RETURNING 1
        )
        UPDATE timeline_version SET n = n + 1
        """
    package static let bindingDataTypes: [PostgresDataType] = [.uuidArray, .textArray, .textArray, .textArray, .timestamptzArray]
    package var chatts: [Chatt]

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 5)
        binds.append(chatts.map(\.id))
        binds.append(chatts.map { $0.userID?.text ?? "" })
        binds.append(chatts.map(\.name))
        binds.append(chatts.map(\.message))
        binds.append(chatts.map(\.time))
        return binds
    }
}
