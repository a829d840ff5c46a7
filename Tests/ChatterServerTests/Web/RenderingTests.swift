import ChatterTestSupport
import Foundation
import Mustache
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// One escaping rule for every byte a page renders (`HTMLText`), labels cleaned before they are stored
/// (`DisplayText`), and CSRF tokens bound to the action they protect (`FormAction`).
@Suite struct RenderingTests {
    /// Each of the characters HTML gives meaning to, alone and followed by what once hid it (combining
    /// marks), and the other tricks: joiners, bidi overrides, NUL and other controls, a long value.
    static let adversarial: [String] = {
        var values: [String] = []
        for special in ["<", ">", "&", "\"", "'"] {
            values += [special, special + "\u{301}", special + "\u{20DD}", special + "\u{200D}", special + "\u{FE0F}", "x" + special + "\u{301}y"]
        }
        values += [
            "\"\u{301} formaction=/account/delete autofocus onfocus=alert(1) x=\"", "'\u{301} onclick='alert(1)", "<\u{301}script>alert(1)</script>",
            "</textarea\u{301}><b>", "\u{202E}evil\u{202C}", "\u{2066}x\u{2069}", "a\u{0}b", "\u{1B}[31m", "\u{85}\u{9F}", "&#34;", "&quot\u{301};",
            String(repeating: "\"\u{301}<\u{301}", count: 2_000),
        ]
        return values
    }()

    @Test func sessionsAreNamedByTheirAppAndDevice() {
        #expect(UserAgentName.short("CourseChat/1.2 ChatterKit/0.3.0 (iOS 18.1; iPhone15,2)") == "CourseChat on iPhone")
        #expect(UserAgentName.short("Notes/3 ChatterKit/0.3.0 (macOS 15.1; arm64)") == "Notes on macOS")
        #expect(UserAgentName.short("ChatterKit/0.2.0") == "Chatter app")
        #expect(UserAgentName.short("chatter/0.3.0 (terminal)") == "chatter (terminal)")
        #expect(UserAgentName.short("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1") == "Safari on iPhone")
    }

    @Test func everySpecialCharacterIsEscapedEvenWithACombiningMarkAfterIt() {
        for value in Self.adversarial {
            let escaped = HTMLText.escape(value)
            #expect(!escaped.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) || HTMLText.isControl($0) }, "\(value.debugDescription)")
        }
        #expect(HTMLText.escape("\"\u{301}") == "&quot;\u{301}")
        #expect(HTMLText.escape("Ada & <Bob> \"'") == "Ada &amp; &lt;Bob&gt; &quot;&#39;")
        #expect(HTMLText.escape("plain text, ünïcödé 👩‍💻") == "plain text, ünïcödé 👩‍💻")
        #expect(HTMLText.escape("a\u{0}b\u{7F}\u{9F}\t\n") == "a\u{FFFD}b\u{FFFD}\u{FFFD}\t\n")
        // What swift-mustache's own rule did, and why it is not used: the quote hid in its Character.
        #expect("\"\u{301}".count == 1 && "\"\u{301}".first != "\"")
    }

    /// A `String` is a `MustacheCustomRenderable` (`TemplateFields.swift`), so swift-mustache stops its casts
    /// there: each way a template reads a string still writes the string, escaped by `HTMLText`.
    @Test func aStringRendersAsItselfEscapedWhicheverWayATemplateReadsIt() throws {
        _ = WebPages(policy: WebPolicy())  // registers HTMLText
        let template = try MustacheTemplate(string: HTMLText.pragma + "{{v}}|{{#v}}{{.}}{{/v}}|{{^v}}none{{/v}}|{{{v}}}")
        for value in Self.adversarial + ["", "plain"] {
            let escaped = HTMLText.escape(value)
            #expect(template.render(["v": value]) == "\(escaped)|\(escaped)||\(value)", "\(value.debugDescription)")
        }
        #expect(template.render([String: String]()) == "||none|", "no value")
    }

    @Test func labelsAreCleanedOfControlFormatAndLeadingCombiningCharacters() {
        #expect(DisplayText.clean("\u{301}\u{300}Ada") == "Ada")
        #expect(DisplayText.clean("Ada\u{202E}gnp.exe\u{202C}") == "Adagnp.exe")
        #expect(DisplayText.clean("a\u{200B}b\u{FEFF}c\u{E0041}") == "abc", "zero-width space, BOM, tag characters")
        #expect(DisplayText.clean("  Ada\u{0}\u{1B}[31m\n\tLovelace  ") == "Ada [31m Lovelace")
        #expect(DisplayText.clean("👩\u{200D}💻 Zoë") == "👩\u{200D}💻 Zoë", "joiners and marks inside a label stay")
        #expect(DisplayText.clean("\u{2028}\u{2029}") == "")
        let stacked = "Z" + String(repeating: "\u{301}", count: 5_000) + "oë"
        #expect(DisplayText.clean(stacked).unicodeScalars.count == 1 + DisplayText.marksPerBase + 2, "stacked marks are cut to a few per base")
    }

    /// Every name a template asks for answers `value`. `isNull` decides which sections render: false
    /// renders every `{{#…}}`, true every `{{^…}}` (the Revoke and End-session buttons are in inverted
    /// sections), so the two passes together reach every tag.
    struct Everything: MustacheParent, MustacheCustomRenderable {
        let value: String
        var isNull = false
        func child(named: String) -> Any? { self }
        var renderText: String { value }
    }

    /// What HTML gives meaning to, counted: values cannot add any (each is escaped), so a page rendered with
    /// any value has exactly the counts the template has with a plain one.
    static func markup(_ html: String) -> [Unicode.Scalar: Int] {
        html.unicodeScalars.reduce(into: [:]) { counts, scalar in if "<>\"'".unicodeScalars.contains(scalar) { counts[scalar, default: 0] += 1 } }
    }

    @Test func everyTemplateHasOnlyItsOwnMarkupWhateverItsValuesHold() throws {
        let pages = WebPages(policy: WebPolicy())
        #expect(pages.templateNames.count >= 12 && pages.templateNames.contains("admin-user"))
        #expect(pages.fragmentNames == ["chatts"])
        for name in pages.templateNames where name != "layout" {
            for inverted in [false, true] {
                let plain = Self.markup(try #require(pages.templates[name]?.render(Everything(value: "x", isNull: inverted))))
                if pages.fragmentNames.contains(name) {
                    #expect(inverted || plain["<", default: 0] > 3, "\(name), a part of a page, has markup of its own")
                } else {
                    #expect(plain["<", default: 0] > 20, "\(name) renders inside the layout")
                }
                for value in Self.adversarial {
                    let html = try #require(pages.templates[name]?.render(Everything(value: value, isNull: inverted)))
                    #expect(Self.markup(html) == plain, "\(name) (inverted: \(inverted)) with \(value.prefix(40).debugDescription)")
                }
            }
        }
    }

    /// Python's HTML parser (`html.parser`, a tokenizer after the HTML standard's) reads each document; the
    /// answer is, per document, its start tags in order, each with its attribute names. Nil, after saying
    /// why, when there is no python3 here: the browser tests check the same pages in Chromium.
    static func parsed(_ documents: [String]) async throws -> [[String]]? {
        let script = """
            import json, sys
            from html.parser import HTMLParser
            class Tags(HTMLParser):
                def __init__(self):
                    super().__init__(convert_charrefs=True); self.tags = []
                def handle_starttag(self, tag, attrs):
                    self.tags.append(" ".join([tag] + sorted(name for name, _ in attrs)))
                handle_startendtag = handle_starttag
            out = []
            for document in json.load(sys.stdin):
                parser = Tags(); parser.feed(document); parser.close(); out.append(parser.tags)
            json.dump(out, sys.stdout)
            """
        #if os(Linux)
            let outcome: ChildProcess.Outcome
            do {
                outcome = try await ChildProcess.run(
                    "/usr/bin/env", ["python3", "-c", script], input: try JSONEncoder().encode(documents), timeout: .seconds(120))
            } catch {
                print("skipping the HTML parser check: \(error)")
                return nil
            }
            guard outcome.status == 0 else {
                print("skipping the HTML parser check: python3 is not here (\(String(decoding: outcome.error.prefix(200), as: UTF8.self)))")
                return nil
            }
            return try JSONDecoder().decode([[String]].self, from: outcome.output)
        #else
            print("skipping the HTML parser check: it runs on Linux")
            return nil
        #endif
    }

    @Test func everyTemplateKeepsItsElementsAndAttributesInARealHTMLParser() async throws {
        let pages = WebPages(policy: WebPolicy())
        var documents: [String] = []
        var labels: [String] = []
        for name in pages.templateNames where name != "layout" {
            for inverted in [false, true] {
                for value in ["x"] + Self.adversarial {
                    documents.append(try #require(pages.templates[name]?.render(Everything(value: value, isNull: inverted))))
                    labels.append("\(name) \(inverted ? "inverted" : "direct") with \(value.prefix(40).debugDescription)")
                }
            }
        }
        guard let structures = try await Self.parsed(documents) else { return }
        #expect(structures.count == documents.count)
        var expected: [String] = []
        for (index, structure) in structures.enumerated() {
            if labels[index].hasSuffix(" with \"x\"") {
                expected = structure
                let fragment = pages.fragmentNames.contains(String(labels[index].prefix { $0 != " " }))
                #expect(fragment || (structure.contains { $0.hasPrefix("html") } && structure.count > 10), "\(labels[index])")
            } else {
                #expect(structure == expected, "\(labels[index])")
            }
        }
    }

    /// The finding: a member's User-Agent put `formaction=/account/delete` on the operator's "End session"
    /// button, and the browser's one CSRF token made the post valid.
    @Test func aUserAgentCannotAddAnAttributeToTheOperatorsPage() async throws {
        try await Harness.run { h async throws in
            var operatorBrowser = WebBrowser(h)
            #expect(try await operatorBrowser.signInWithCode("root@example.com").status == .seeOther)
            let operatorID = try #require(try await h.store.accounts(withEmail: "root@example.com").first?.user.id)
            try await h.services.admin.setAdmin(true, userID: operatorID, by: .commandLine(login: "test"))
            _ = try await operatorBrowser.enrolSecondFactor(h)

            var member = WebBrowser(h)
            member.userAgent = "\"\u{301} formaction=/account/delete x=\""
            #expect(try await member.signInWithCode("mo@example.com").status == .seeOther)
            let memberID = try #require(try await h.store.accounts(withEmail: "mo@example.com").first?.user.id)

            var shown: [String] = []
            for (browser, path) in [(operatorBrowser, "/admin/users/\(memberID.uuidString)"), (member, "/account")] {
                var browser = browser
                let page = WebBrowser.text(try await browser.get(path))
                #expect(page.contains("&quot;\u{301} formaction=/account/delete x=&quot;"), "\(path) shows the label as text")
                let rawQuote = "\u{22}\u{301}"
                #expect(!page.contains(rawQuote), "\(path)")
                shown.append(page)
            }
            for structure in try await Self.parsed(shown) ?? [] {
                #expect(!structure.contains { $0.split(separator: " ").contains("formaction") })
                #expect(!structure.contains { $0.split(separator: " ").contains("x") })
            }

            // The token the operator's page carries for "end session" deletes nothing.
            let page = WebBrowser.text(try await operatorBrowser.get("/admin/users/\(memberID.uuidString)"))
            let tokens = Self.csrfValues(page)
            #expect(!tokens.isEmpty)
            for token in tokens {
                #expect(try await operatorBrowser.post("/account/delete", [], csrf: token).status == .forbidden)
                #expect(try await operatorBrowser.post("/admin/users/\(memberID.uuidString)/delete", [], csrf: token).status == .forbidden)
                #expect(try await operatorBrowser.post("/admin/users/\(memberID.uuidString)/disable", [], csrf: token).status == .forbidden)
            }
            let operatorAccount = try await h.store.account(id: operatorID)
            let memberAccount = try await h.store.account(id: memberID)
            #expect(operatorAccount != nil && memberAccount != nil && memberAccount?.disabledAt == nil)
        }
    }

    static func csrfValues(_ html: String) -> [String] {
        html.components(separatedBy: "name=\"csrf\" value=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    @Test func aTokenWorksOnlyForItsOwnActionAndDestructiveOnesOnlyFromTheirConfirmationPage() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("ada@example.com").status == .seeOther)
            let id = try #require(browser.cookies[WebVisitor.browserCookieName])
            let tokens = Set(FormAction.allCases.map { $0.csrfToken(forBrowser: id) })
            #expect(tokens.count == FormAction.allCases.count, "every action has a token of its own")

            // The account page carries no deletion token; the confirmation page does, and only it.
            let account = Self.csrfValues(WebBrowser.text(try await browser.get("/account")))
            #expect(!account.isEmpty && !account.contains(browser.csrf(.deleteAccount)))
            let confirm = Self.csrfValues(WebBrowser.text(try await browser.get("/account/delete")))
            #expect(confirm == [browser.csrf(.deleteAccount)])
            for token in account {
                #expect(try await browser.post("/account/delete", [], csrf: token).status == .forbidden)
            }
            #expect(try await h.store.accounts(withEmail: "ada@example.com").count == 1)
            #expect(try await browser.post("/post", [("message", "hi")], csrf: browser.csrf(.signOut)).status == .forbidden)
            #expect(try await h.store.chattCount() == 0)
            #expect(try await browser.post("/account/delete", [], csrf: confirm[0]).status == .seeOther)
            #expect(try await h.store.accounts(withEmail: "ada@example.com").isEmpty)
        }
    }

    @Test func anOperatorDisablesAnAccountOnlyThroughItsConfirmationPage() async throws {
        try await Harness.run { h async throws in
            var browser = WebBrowser(h)
            #expect(try await browser.signInWithCode("root@example.com").status == .seeOther)
            let operatorID = try #require(try await h.store.accounts(withEmail: "root@example.com").first?.user.id)
            try await h.services.admin.setAdmin(true, userID: operatorID, by: .commandLine(login: "test"))
            _ = try await browser.enrolSecondFactor(h)
            let member = try await h.nativeSignIn(subject: "member", name: "Member Mo", email: "mo@example.com")
            let memberID = try #require(UUID(uuidString: member.user.id))
            let user = "/admin/users/\(memberID.uuidString)"

            let page = WebBrowser.text(try await browser.get(user))
            #expect(page.contains("href=\"\(user)/disable\"") && !Self.csrfValues(page).contains(browser.csrf(.disableAccount)))
            let confirm = try await browser.get(user + "/disable")
            #expect(confirm.status == .ok && WebBrowser.text(confirm).contains("Disable Member Mo?"))
            #expect(Self.csrfValues(WebBrowser.text(confirm)) == [browser.csrf(.disableAccount)])
            #expect(try await browser.post(user + "/disable", [], csrf: browser.csrf(.enableAccount)).status == .forbidden)
            #expect(try await h.store.account(id: memberID)?.disabledAt == nil)
            #expect(try await browser.post(user + "/disable", [], csrf: Self.csrfValues(WebBrowser.text(confirm))[0]).status == .seeOther)
            #expect(try await h.store.account(id: memberID)?.disabledAt != nil)
        }
    }
}
