import ChatterCore
import Foundation

/// Times an operator gives to filter the audit log: `2026-11-25`, `2026-11-25T10:00` (what a browser's
/// date and time fields send) or a full ISO 8601 time with a zone. Times without a zone are UTC.
public enum AuditTime {
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 40 else { return nil }
        // fail-closed: text that is no full ISO 8601 time tries the next form; the last one answers nil
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        let utc = TimeZone(identifier: "UTC")!
        // fail-closed: text that is no zoneless time tries the day form, which answers nil
        if let date = try? Date(trimmed + ":00Z", strategy: .iso8601) { return date }
        let day = Date.ISO8601FormatStyle(timeZone: utc).year().month().day()
        // fail-closed: text that is no day is nil: the operator is told it is not a date and no events are listed
        return try? Date(trimmed, strategy: day)
    }
}
