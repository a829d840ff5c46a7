import Foundation

extension ChattRow {
    /// `time` as a date, or `nil` when the server sent something that is not ISO 8601.
    public var postedAt: Date? {
        (try? Date(time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
            ?? (try? Date(time, strategy: .iso8601))
    }
}
