import Mustache

/// A page's template, compiled once at start: its parent's blocks filled in, every name split into its
/// parts, so a render walks the nodes and asks each value for its fields by name (`MustacheParent`,
/// which every page value implements through `TemplateFields`) and nothing else.
///
/// Why not swift-mustache's renderer, which served the pages until issue 46: it splits each name on `.`
/// at every render and asks every value in turn whether it is a template, a custom representation, a
/// lambda, a transform, an optional, before `String(describing:)`: 41 % of `/account`'s instructions
/// (BENCHMARKS.md). The output is the same byte for byte: debug builds render every page both ways and
/// compare (`WebPages.render`), and every value is escaped by the same `HTMLText`.
struct PageTemplate: Sendable {
    indirect enum Node: Sendable, Equatable {
        case text(String)
        case value([String])
        case section([String], [Node])
        case inverted([String], [Node])
    }

    let nodes: [Node]

    /// Compiles every template in `sources` (name → text, the pragma included), resolving parents among
    /// them. A template that does not parse, or whose parent is missing, is left out (its pages answer
    /// 500), with the reason in `failures`.
    static func compile(_ sources: [String: String]) -> (templates: [String: PageTemplate], failures: [String: String]) {
        var parsed: [String: [TemplateParser.Node]] = [:]
        var failures: [String: String] = [:]
        for (name, text) in sources {
            do { parsed[name] = try TemplateParser.parse(text) } catch { failures[name] = "\(error)" }
        }
        var templates: [String: PageTemplate] = [:]
        for (name, nodes) in parsed {
            do {
                templates[name] = PageTemplate(nodes: try resolve(nodes, blocks: [:], parsed: parsed, depth: 0))
            } catch {
                failures[name] = "\(error)"
            }
        }
        return (templates, failures)
    }

    /// Parents are replaced by their nodes, with the blocks filled in: the page's own blocks win over
    /// those of a parent's parent, as in Mustache's inheritance.
    private static func resolve(
        _ nodes: [TemplateParser.Node], blocks: [String: [TemplateParser.Node]], parsed: [String: [TemplateParser.Node]], depth: Int
    ) throws -> [Node] {
        guard depth < 8 else { throw TemplateParser.Failure(description: "parents nest too deep (a template that is its own parent?)") }
        var out: [Node] = []
        for node in nodes {
            switch node {
            case .text(let text):
                // Adjacent text is one node: fewer appends at each render.
                if case .text(let last)? = out.last {
                    out[out.count - 1] = .text(last + text)
                } else {
                    out.append(.text(text))
                }
            case .value(let path): out.append(.value(path))
            case .section(let path, let children):
                out.append(.section(path, try resolve(children, blocks: blocks, parsed: parsed, depth: depth)))
            case .inverted(let path, let children):
                out.append(.inverted(path, try resolve(children, blocks: blocks, parsed: parsed, depth: depth)))
            case .block(let name, let fallback):
                out += try resolve(blocks[name] ?? fallback, blocks: blocks, parsed: parsed, depth: depth)
            case .parent(let name, let filled):
                guard let parent = parsed[name] else { throw TemplateParser.Failure(description: "no template \(name)") }
                out += try resolve(parent, blocks: blocks.merging(filled) { page, _ in page }, parsed: parsed, depth: depth + 1)
            }
        }
        return out
    }

    /// The template rendered with `value` at the bottom of the stack.
    func render(_ value: Any) -> String {
        var out = ""
        out.reserveCapacity(4096)
        var stack: [Any] = [value]
        Self.render(nodes, &stack, into: &out)
        return out
    }

    private static func render(_ nodes: [Node], _ stack: inout [Any], into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .value(let path):
                guard let found = lookUp(path, in: stack) else { continue }
                out += HTMLText.escape(text(of: found))
            case .section(let path, let children):
                switch lookUp(path, in: stack) {
                case let list as any TemplateList:
                    list.forEachItem { item in
                        stack.append(item)
                        render(children, &stack, into: &out)
                        stack.removeLast()
                    }
                case let flag as Bool:
                    if flag { render(children, &stack, into: &out) }
                case let custom as any MustacheCustomRenderable where custom.isNull:
                    continue
                case .some(let value):
                    stack.append(value)
                    render(children, &stack, into: &out)
                    stack.removeLast()
                case .none:
                    continue
                }
            case .inverted(let path, let children):
                let shown: Bool =
                    switch lookUp(path, in: stack) {
                    case let list as any TemplateList: list.isEmptyList
                    case let flag as Bool: !flag
                    case let custom as any MustacheCustomRenderable where custom.isNull: true
                    case .some: false
                    case .none: true
                    }
                if shown { render(children, &stack, into: &out) }
            }
        }
    }

    /// The first name is looked for from the top of the stack down; the rest inside what it found. A field
    /// whose value is nil is not found, so the search goes on below it, as in Mustache.
    private static func lookUp(_ path: [String], in stack: [Any]) -> Any? {
        guard let first = path.first else { return stack.last }
        for value in stack.reversed() {
            guard let found = (value as? any MustacheParent)?.child(named: first) else { continue }
            var current: Any = found
            for name in path.dropFirst() {
                guard let next = (current as? any MustacheParent)?.child(named: name) else { return nil }
                current = next
            }
            return current
        }
        return nil
    }

    /// A value's text before escaping: strings as they are, anything else as Swift describes it.
    private static func text(of value: Any) -> String {
        switch value {
        case let string as String: string
        case let custom as any MustacheCustomRenderable: custom.renderText
        case let number as Int: String(number)
        default: String(describing: TemplateFieldsCheck.unwrapped(value) ?? value)
        }
    }
}

/// A list a section repeats its content for, once per item with the item on top of the stack.
protocol TemplateList {
    func forEachItem(_ body: (Any) -> Void)
    var isEmptyList: Bool { get }
}

extension Array: TemplateList {
    func forEachItem(_ body: (Any) -> Void) {
        for item in self { body(item) }
    }

    var isEmptyList: Bool { isEmpty }
}
