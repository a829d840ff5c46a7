import ChatterCore
import Foundation
import PostgresNIO

// The second factor's statements on a sign-in's path: whether an account has one (every sign-in asks),
// and the second step's read of its waiting sign-in, its guess and its use of a time step.

package struct HasSecondFactor: PreparedStatement {
    package static let sql = "SELECT 1 FROM totp_authenticators WHERE user_id = $1 AND confirmed_at IS NOT NULL"
    package static let bindingDataTypes: [PostgresDataType] = [.uuid]
    package var userID: UUID

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(userID)
        return binds
    }
}

/// Every prepared statement names its columns: a prepared `SELECT *` fails with "cached plan must not change
/// result type" on every pooled connection once a newer instance's migration adds a column (migration 11 did,
/// to this table), until the connection is closed.
package struct WaitingSecondStep: PreparedStatement {
    package static let sql = """
        SELECT \(PostgresStore.secondStepColumns) FROM second_steps WHERE hash = $1 AND expires_at > $2
        """
    package static let bindingDataTypes: [PostgresDataType] = [.bytea, .timestamptz]
    package var hash: [UInt8]
    package var now: Date

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(hash.bytea)
        binds.append(now)
        return binds
    }
}

/// Counts a guess at an authenticator's code in its 15-minute and its daily window; a concurrent guess
/// waits for the row and counts on this one.
package struct TakeTOTPGuess: PreparedStatement {
    package static let sql = """
        UPDATE totp_authenticators SET
            guesses = CASE WHEN guess_window_start > $1 THEN guesses + 1 ELSE 1 END,
            guess_window_start = CASE WHEN guess_window_start > $1 THEN guess_window_start ELSE $3 END,
            day_guesses = CASE WHEN day_window_start > $2 THEN day_guesses + 1 ELSE 1 END,
            day_window_start = CASE WHEN day_window_start > $2 THEN day_window_start ELSE $3 END
        WHERE user_id = $4 AND (confirmed_at IS NOT NULL) = $5
        RETURNING sealed_secret, last_step, guesses, day_guesses
        """
    package static let bindingDataTypes: [PostgresDataType] = [.timestamptz, .timestamptz, .timestamptz, .uuid, .bool]
    package var windowStart: Date
    package var dayStart: Date
    package var now: Date
    package var userID: UUID
    package var confirmed: Bool

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 5)
        binds.append(windowStart)
        binds.append(dayStart)
        binds.append(now)
        binds.append(userID)
        binds.append(confirmed)
        return binds
    }
}

/// Uses a time step (only a later one than the last) and, in the same statement, takes the waiting sign-in
/// it completes.
package struct UseTOTPStepCompleting: PreparedStatement {
    package static let sql = """
        WITH used AS (
                UPDATE totp_authenticators SET last_step = $1, guesses = GREATEST(guesses - 1, 0), day_guesses = GREATEST(day_guesses - 1, 0)
                WHERE user_id = $2 AND confirmed_at IS NOT NULL AND last_step < $1 RETURNING user_id
            ),
            taken AS (
                DELETE FROM second_steps WHERE hash = $3 AND user_id IN (SELECT user_id FROM used)
                RETURNING \(PostgresStore.secondStepColumns)
            )
        SELECT (SELECT count(*) FROM used) AS used, taken.* FROM (SELECT 1) one LEFT JOIN taken ON true
        """
    package static let bindingDataTypes: [PostgresDataType] = [.int8, .uuid, .bytea]
    package var step: Int64
    package var userID: UUID
    package var hash: [UInt8]

    package func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 3)
        binds.append(step)
        binds.append(userID)
        binds.append(hash.bytea)
        return binds
    }
}
