import Foundation
import Mustache
import Testing

@testable import ChatterServer

/// The pages' compiled templates (`PageTemplate`): the same bytes swift-mustache rendered, for every way
/// the templates use Mustache and the corners of its whitespace rules; everything outside that subset refused.
@Suite struct PageTemplateTests {
    /// Renders `templates` (name → text; "page" is rendered) with `value` both ways.
    private func both(_ templates: [String: String], _ value: Any) throws -> (compiled: String, reference: String) {
        MustacheContentTypes.register(HTMLText(), named: HTMLText.pragmaName)
        var library = MustacheLibrary()
        var sources: [String: String] = [:]
        for (name, text) in templates {
            try library.register(HTMLText.pragma + text, named: name)
            sources[name] = HTMLText.pragma + text
        }
        let compiled = PageTemplate.compile(sources)
        #expect(compiled.failures.isEmpty, "\(compiled.failures)")
        let page = try #require(compiled.templates["page"])
        return (page.render(value), library.render(value, withTemplate: "page") ?? "(swift-mustache rendered nothing)")
    }

    struct Item: MustacheParent {
        var name: String
        var note: String?
        func child(named key: String) -> Any? {
            switch key {
            case "name": name
            case "note": note
            default: nil
            }
        }
    }

    struct Page: MustacheParent {
        var title = "Chatts & \"more\""
        var items: [Item] = [Item(name: "a<b", note: "n1"), Item(name: "é\u{301}'", note: nil)]
        var empty: [Item] = []
        var on = true
        var off = false
        var count = 42
        var note: String? = "page's note"
        var missing: String?
        var inner: Item? = Item(name: "inner", note: nil)
        func child(named key: String) -> Any? {
            switch key {
            case "title": title
            case "items": items
            case "empty": empty
            case "on": on
            case "off": off
            case "count": count
            case "note": note
            case "missing": missing
            case "inner": inner
            default: nil
            }
        }
    }

    /// Each line of each case is a way the templates (or an edit of them) use Mustache's whitespace rules.
    static let cases: [String] = [
        "<h1>{{title}}</h1>\n",
        "{{#items}}\n<li>{{name}}</li>\n{{/items}}\n",
        "  {{#items}}\n  <li>{{name}}</li>\n  {{/items}}\n<p>after</p>\n",
        "<ul>{{#items}}<li>{{name}}: {{note}}</li>{{/items}}</ul>\n",
        "{{#items}}<li>{{name}}</li>\n{{/items}}\nend",
        "<p>{{#on}}\nyes\n{{/on}}\nno</p>\n",
        "{{^empty}}\nnone\n{{/empty}}\n{{^items}}hidden{{/items}}\n",
        "{{#off}}never{{/off}}{{^off}}shown{{/off}}\n{{#missing}}x{{/missing}}{{^missing}}absent{{/missing}}\n",
        "{{#note}}<p>{{.}}</p>{{/note}}\n{{#inner}}{{name}} {{note}} {{title}}{{/inner}}\n",
        "{{inner.name}} {{inner.note}} {{inner.missing}} {{count}} {{on}}\n",
        "  {{title}}  \n\t{{#on}}  \t\n x \n {{/on}} \n",
        "a {{ title }} b {{#on}} c {{/on}} d\n\n\n",
        "{{#items}}\n  {{#note}}\n    <i>{{.}}</i>\n  {{/note}}\n{{/items}}",
        "no newline at the end {{title}}",
        "{ single {braces} and {{title}}}",
    ]

    @Test(arguments: cases)
    func aTemplateRendersAsSwiftMustacheRenderedIt(_ text: String) throws {
        let (compiled, reference) = try both(["page": text], Page())
        #expect(compiled == reference)
    }

    @Test func aParentsBlocksAreFilledAsSwiftMustacheFilledThem() throws {
        let layout = "<html>\n<title>{{title}}</title>\n{{$head}}{{/head}}\n<main>\n{{$content}}default{{/content}}\n</main>\n</html>\n"
        let pages = [
            "{{<layout}}\n{{$content}}\n<h1>{{title}}</h1>\n{{#items}}\n<li>{{name}}</li>\n{{/items}}\n{{/content}}\n{{/layout}}\n",
            "{{<layout}}\n{{$head}}<meta name=\"x\">{{/head}}\n{{$content}}\n  indented first\n    deeper\n  back\n{{/content}}\n{{/layout}}\n",
            "{{<layout}}\nignored text\n{{/layout}}\n",
            "{{<layout}}{{$content}}inline{{/content}}{{/layout}}",
        ]
        for page in pages {
            let (compiled, reference) = try both(["layout": layout, "page": page], Page())
            #expect(compiled == reference, "\(page.debugDescription)")
        }
    }

    @Test func everyValueIsEscapedPerUnicodeScalar() throws {
        var page = Page()
        page.title = "\"\u{301}<script>&'\u{0}\u{1B}"
        let html = try #require(PageTemplate.compile(["page": HTMLText.pragma + "{{title}}"]).templates["page"]).render(page)
        #expect(html == "&quot;\u{301}&lt;script&gt;&amp;&#39;\u{FFFD}\u{FFFD}")
    }

    @Test func whatTheSubsetLeavesOutIsRefused() {
        let refused = [
            "{{{title}}}", "{{&title}}", "{{>partial}}", "{{! a comment }}", "{{=<% %>=}}", "{{#items}}open", "{{/items}}",
            "{{#a}}{{/b}}", "{{title(x)}}", "{{a..b}}", "{{}}", "{{title", "{{<missing}}{{/missing}}", "{{<page}}{{/page}}",
            "x\n  {{<layout}}{{/layout}}", "{{<layout}}{{#on}}{{/on}}{{/layout}}",
        ]
        for text in refused {
            let result = PageTemplate.compile(["page": HTMLText.pragma + text, "layout": "{{$content}}{{/content}}"])
            #expect(result.templates["page"] == nil, "\(text.debugDescription) was compiled")
            #expect(result.failures["page"] != nil)
        }
    }

    /// Every page chatterd serves compiles, and no other template is left out.
    @Test func everyBundledTemplateCompiles() {
        let pages = WebPages(policy: WebPolicy())
        #expect(pages.templateNames.count == pages.templates.count)
        #expect(pages.templateNames.count >= 21)
        #expect(pages.templateNames.contains("layout") && pages.templateNames.contains("account"))
    }
}
