import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Pages hand their values to templates by name (`TemplateFields`) instead of through reflection, and
/// write times by hand instead of through `Date.FormatStyle`: both must give what the slow ways gave.
@Suite struct TemplateFieldsTests {
    struct Listed: TemplateFields {
        let title: String
        let count: Int
        let note: String?
        func child(named name: String) -> Any? {
            switch name {
            case "title": title
            case "count": count
            case "note": note
            default: nil
            }
        }
    }

    struct Forgotten: TemplateFields {
        let title: String
        let added: String
        func child(named name: String) -> Any? { name == "title" ? title : nil }
    }

    struct Swapped: TemplateFields {
        let name, email: String
        func child(named name: String) -> Any? {
            switch name {
            case "name": email
            case "email": self.name
            default: nil
            }
        }
    }

    struct Plain { let text: String }

    struct Holding: TemplateFields {
        let rows: [Listed]
        let reflected: Plain
        func child(named name: String) -> Any? {
            switch name {
            case "rows": rows
            case "reflected": reflected
            default: nil
            }
        }
    }

    @Test func theCheckFindsAPropertyForgottenSwappedOrReadByReflection() {
        #expect(TemplateFieldsCheck.problems(in: Listed(title: "t", count: 2, note: nil), path: "p").isEmpty)
        #expect(TemplateFieldsCheck.problems(in: Listed(title: "t", count: 2, note: "n"), path: "p").isEmpty)
        #expect(TemplateFieldsCheck.problems(in: Forgotten(title: "t", added: "a"), path: "p") == ["p.added is not listed as itself"])
        #expect(
            TemplateFieldsCheck.problems(in: Swapped(name: "n", email: "e"), path: "p") == [
                "p.name is not listed as itself", "p.email is not listed as itself",
            ])
        let holding = Holding(rows: [Listed(title: "a", count: 1, note: nil), Listed(title: "b", count: 2, note: "x")], reflected: Plain(text: "t"))
        #expect(TemplateFieldsCheck.problems(in: holding, path: "p") == ["p.reflected (Plain) is read by reflection"])
    }

    @Test func theTimelinePageRendersEveryValueItIsHanded() throws {
        let pages = WebPages(policy: WebPolicy())
        let visitor = WebVisitor(browserID: String(repeating: "b", count: 43), isNewBrowser: false, session: nil)
        let items = (0..<50).map { TimelinePages.List.Item(name: "Name \($0)", message: "Message <\($0)>", iso: "iso-\($0)", utc: "utc-\($0)") }
        let list = TimelinePages.List(chatts: items)
        #expect(TemplateFieldsCheck.problems(in: list, path: "chatts").isEmpty)
        let html = pages.fragment("chatts", list)
        for index in 0..<50 {
            #expect(html.contains("<span class=\"name\" dir=\"auto\">Name \(index)</span>"))
            #expect(html.contains("<p class=\"message\" dir=\"auto\">Message &lt;\(index)&gt;</p>"))
            #expect(html.contains("<time datetime=\"iso-\(index)\">utc-\(index)</time>"))
        }
        let page = TimelinePages.Page(
            frame: pages.frame("Timeline", visitor, notice: "A notice"), hasChatts: true, older: "OLDER-ID", paged: true, draft: "", postKey: "KEY")
        #expect(TemplateFieldsCheck.problems(in: page, path: "timeline").isEmpty)
        let text = try #require(pages.templates["timeline"]?.render(page))
        #expect(text.components(separatedBy: "<!--chatts-->").count == 2, "one slot, inside the list")
        #expect(text.contains("<ol class=\"chatts\">\n<!--chatts-->\n</ol>"))
        #expect(text.contains("<title>Timeline · Chatter</title>") && text.contains("A notice"))
        #expect(text.contains("href=\"/?before=OLDER-ID\"") && text.contains("<a href=\"/\">Newest</a>"))
        #expect(text.contains(pages.assetURL("chatter.css")) && text.contains("<a href=\"/auth\">Sign in</a> to post."))
    }

    /// Only template text can hold a slot's comment: a value that spells it arrives escaped.
    @Test func noValueCanPlaceASlot() throws {
        let pages = WebPages(policy: WebPolicy())
        let list = TimelinePages.List(chatts: [TimelinePages.List.Item(name: "<!--chatts-->", message: "<!--chatts-->", iso: "x", utc: "y")])
        let html = pages.fragment("chatts", list)
        #expect(!html.contains("<!--chatts-->") && html.contains("&lt;!--chatts--&gt;"))
    }

    /// Instants across two centuries (leap days, year and month ends, the epoch, whole and fractional
    /// seconds), each written by `TimeText` and by Foundation's formatters as the pages once did.
    @Test func timesAreWrittenAsFoundationWritesThem() {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_GB"), timeZone: TimeZone(identifier: "UTC")!)
        style.timeZone = TimeZone(identifier: "UTC")!
        var instants: [TimeInterval] = [0, 59.999, 951_782_400, 951_868_799.5, 1_709_164_800, 4_107_456_000, 1_798_761_599, 1_798_761_600]
        var generator = SystemRandomNumberGenerator()
        instants += (0..<2_000).map { _ in TimeInterval(Double.random(in: 0..<4_102_444_800, using: &generator)) }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(TimeText.iso(date) == date.formatted(Date.ISO8601FormatStyle()), "\(seconds)")
            #expect(TimeText.utc(date) == date.formatted(style) + " UTC", "\(seconds)")
        }
    }

    /// The course API's `time`: milliseconds cut, not rounded, as Foundation cuts them, including times a
    /// hair before a second, times read back from the database's REAL column, and now.
    @Test func millisecondTimesAreWrittenAsFoundationWritesThem() {
        var instants: [TimeInterval] = [0, 0.0005, 0.9995, 0.999_999_9, 59.999, 951_868_799.999_9, 1_798_761_599.999_999, 1_795_600_800.123]
        var generator = SystemRandomNumberGenerator()
        instants += (0..<5_000).map { _ in Double.random(in: 0..<4_102_444_800, using: &generator) }
        instants += (0..<5_000).map { _ in Double.random(in: 1_700_000_000..<1_900_000_000, using: &generator) }
        instants += (0..<1_000).map { Date().timeIntervalSince1970 + Double($0) / 7 }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let foundation = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(TimeText.isoMilliseconds(date) == foundation, "\(seconds)")
            if TimeText.isoMilliseconds(date) != foundation { return }
        }
    }

    /// The course API's times as chatterd has always written them, whatever a later Foundation does:
    /// milliseconds cut, not rounded.
    @Test func millisecondTimesKeepTheirWrittenForm() {
        #expect(TimeText.isoMilliseconds(Date(timeIntervalSince1970: 1_795_600_800.9996)) == "2026-11-25T10:00:00.999Z")
        #expect(TimeText.isoMilliseconds(Date(timeIntervalSince1970: 1_795_600_800.0419)) == "2026-11-25T10:00:00.041Z")
        #expect(TimeText.isoMilliseconds(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    /// Times no one posts but a damaged or hand-edited database can hold: before 1583, before year 1000,
    /// after 9999, infinite. They are written as Foundation writes them, and none stops the process.
    @Test func timesOutsideTheHandWrittenRangeAreFoundations() {
        for seconds in [-13_000_000_000.0, -40_000_000_000, -62_135_596_800, 253_402_300_800, 1e15, -1e15, .infinity, -.infinity] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(TimeText.iso(date) == date.formatted(Date.ISO8601FormatStyle()), "\(seconds)")
            #expect(TimeText.isoMilliseconds(date) == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), "\(seconds)")
            #expect(TimeText.utc(date) == date.formatted(TimeText.britishUTC) + " UTC", "\(seconds)")
        }
    }
}
