import Foundation

/// Times as text, in UTC: as pages show them (turned into the reader's local time by `chatter.js`) and as
/// the course API's `time` carries them.
///
/// Written out by hand rather than with `Date.FormatStyle`, which took 5 % of the timeline page's time
/// (a locale and time zone looked up for each of 100 stamps) and most of the time of building `/getchatts`;
/// `TemplateFieldsTests` checks each against Foundation's formatting of the same instants.
package enum TimeText {
    /// The instants written by hand, as seconds from the reference date: 1583-01-01 up to the end of 9999.
    /// Outside them Foundation writes its own way (the Julian calendar before the Gregorian reform, padded
    /// and signed years), and a time read from a damaged database can be infinite, which the arithmetic below
    /// could not hold: such times are handed to Foundation.
    package static let writtenByHand: Range<TimeInterval> = -13_190_860_800..<252_423_993_600

    /// `2026-11-27T02:54:11Z`, as `Date.ISO8601FormatStyle()` writes it.
    package static func iso(_ date: Date) -> String {
        guard writtenByHand.contains(date.timeIntervalSinceReferenceDate) else { return date.formatted(Date.ISO8601FormatStyle()) }
        return dateTime(Fields(date)) + "Z"
    }

    /// `2026-11-27T02:54:11.042Z`, as `Date.ISO8601FormatStyle(includingFractionalSeconds: true)` writes it:
    /// the fraction cut (not rounded) to milliseconds.
    package static func isoMilliseconds(_ date: Date) -> String {
        guard writtenByHand.contains(date.timeIntervalSinceReferenceDate) else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let fraction = date.timeIntervalSinceReferenceDate - date.timeIntervalSinceReferenceDate.rounded(.down)
        let milliseconds = min(999, Int(fraction * 1000))
        let digits = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return dateTime(Fields(date)) + ".\(digits)Z"
    }

    /// `2026-11-27T02:54:11`, what both ISO forms begin with.
    private static func dateTime(_ t: Fields) -> String {
        "\(t.year)-\(two(t.month))-\(two(t.day))T\(two(t.hour)):\(two(t.minute)):\(two(t.second))"
    }

    /// `27 Nov 2026 at 2:54 UTC`: British English, abbreviated date and short time, as `Date.FormatStyle` writes it.
    package static func utc(_ date: Date) -> String {
        guard writtenByHand.contains(date.timeIntervalSinceReferenceDate) else { return date.formatted(britishUTC) + " UTC" }
        let t = Fields(date)
        return "\(t.day) \(months[t.month - 1]) \(t.year) at \(t.hour):\(two(t.minute)) UTC"
    }

    /// What `utc` writes by hand, as Foundation writes it.
    package static let britishUTC: Date.FormatStyle = {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_GB"))
        style.timeZone = TimeZone(identifier: "UTC")!
        return style
    }()

    package static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The proleptic Gregorian calendar's fields of an instant in UTC, whole seconds (rounded down).
    package struct Fields {
        package let year, month, day, hour, minute, second: Int

        package init(_ date: Date) {
            // From the reference date, as `Date` keeps it and Foundation reads it: counting from 1970 first
            // could round an instant a hair before a second up into it.
            let seconds = Int(date.timeIntervalSinceReferenceDate.rounded(.down)) + 978_307_200
            let (days, rest) = seconds.quotientAndRemainder(dividingBy: 86_400)
            let (dayNumber, secondOfDay) = rest < 0 ? (days - 1, rest + 86_400) : (days, rest)
            (hour, minute, second) = (secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
            // Days since 1970-01-01 to a civil date, counting in 400-year eras that start on 1 March
            // (so the leap day ends a year): the standard days-to-civil conversion.
            let shifted = dayNumber + 719_468
            let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthFromMarch = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
            month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        }
    }
}
