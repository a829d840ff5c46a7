/// Reads the pages' templates — the part of Mustache they use — into `TemplateParser.Node`s, once at start.
///
/// The subset: text, `{{name}}` and `{{a.b}}` and `{{.}}` (escaped), sections `{{#x}}…{{/x}}` and inverted
/// sections `{{^x}}…{{/x}}`, a parent `{{<layout}}` whose `{{$block}}…{{/block}}`s fill the parent's blocks,
/// and the content-type pragma every template starts with. Anything else (unescaped values, partials,
/// comments, lambdas, transforms, new delimiters) is refused, so a template cannot quietly mean something
/// the renderer does not do.
///
/// Lines are kept and dropped as swift-mustache 2.1.1 does, which rendered these pages before (issue 46),
/// so every page comes out byte for byte as it did (debug builds compare the two on every page they
/// render, `WebPages.render`): a tag other than a value that stands alone on its line takes the line's
/// indentation and its newline with it; whether a line starts "new" for that purpose follows the tag that
/// opened the enclosing section, not the one that closed it; inside a block that fills a parent's, the
/// indentation of the block's first line is taken off every line.
struct TemplateParser {
    indirect enum Node: Equatable, Sendable {
        case text(String)
        /// An escaped value, by its path (empty: the top of the stack, `{{.}}`).
        case value([String])
        case section([String], [Node])
        case inverted([String], [Node])
        /// A parent's block, with what it holds when the page does not fill it.
        case block(String, [Node])
        /// A parent template, with the blocks the page fills.
        case parent(String, [String: [Node]])
    }

    struct Failure: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    private let text: [UInt8]
    private var at = 0

    /// Parses `text` as a whole template.
    static func parse(_ text: String) throws -> [Node] {
        var parser = TemplateParser(text: Array(text.utf8))
        let nodes = try parser.nodes(in: Scope(closing: nil, newLine: true, parentTop: false, inParent: false))
        return nodes
    }

    private init(text: [UInt8]) { self.text = text }

    /// What the nodes being read sit in.
    private struct Scope {
        /// The section or parent whose closing tag ends them (nil: the template's end).
        var closing: String?
        var newLine: Bool
        /// Directly inside a parent tag: only block definitions count there.
        var parentTop: Bool
        /// Anywhere inside a parent tag's blocks.
        var inParent: Bool
        /// The indentation of a parent's block's first line, taken off each of its lines.
        var blockIndent: Int?
    }

    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), newline = UInt8(ascii: "\n")
    private static let open: [UInt8] = Array("{{".utf8), close: [UInt8] = Array("}}".utf8)

    private var atEnd: Bool { at >= text.count }

    private mutating func nodes(in outer: Scope) throws -> [Node] {
        var scope = outer
        var nodes: [Node] = []
        var before: [UInt8] = []  // the line's indentation, until a tag decides what becomes of it
        func flush(_ nodes: inout [Node], _ before: inout [UInt8]) {
            if !before.isEmpty { nodes.append(.text(String(decoding: before, as: UTF8.self))) }
            before = []
        }
        while !atEnd {
            if scope.newLine {
                let indentation = readBlanks()
                if scope.inParent && !scope.parentTop {
                    if let indent = scope.blockIndent {
                        before = Array(indentation.dropFirst(indent))
                    } else {
                        scope.blockIndent = indentation.count
                    }
                } else {
                    before = indentation
                }
            }
            let run = readText()
            if !atEnd, text[at] == Self.newline {
                at += 1
                nodes.append(.text(String(decoding: before + run + [Self.newline], as: UTF8.self)))
                scope.newLine = true
                continue
            }
            if !run.isEmpty {
                nodes.append(.text(String(decoding: before + run, as: UTF8.self)))
                before = []
                scope.newLine = false
            }
            if atEnd { break }
            // At a tag: `{{` has been read.
            var standalone = false
            let kind = text[at]
            switch kind {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                at += 1
                let name = try readName()
                standalone = scope.newLine && finishLine()
                if !standalone { flush(&nodes, &before) }
                var inner = scope
                inner.closing = name
                inner.parentTop = false
                inner.newLine = standalone && scope.newLine
                let children = try self.nodes(in: inner)
                let path = Self.path(name)
                nodes.append(kind == UInt8(ascii: "#") ? .section(path, children) : .inverted(path, children))
            case UInt8(ascii: "/"):
                at += 1
                let name = try readName()
                guard name == scope.closing else { throw Failure(description: "{{/\(name)}} closes nothing open (\(scope.closing ?? "none"))") }
                if !(scope.newLine && finishLine()) { flush(&nodes, &before) }
                return nodes
            case UInt8(ascii: "%"):
                // The content-type pragma: every page is escaped as HTML whatever it names (`HTMLText`).
                at += 1
                try skipTag()
                standalone = scope.newLine && finishLine()
            case UInt8(ascii: "<"):
                at += 1
                let name = try readName()
                guard before.isEmpty else { throw Failure(description: "an indented parent ({{<\(name)}}) is not supported") }
                standalone = scope.newLine && finishLine()
                let inner = Scope(closing: name, newLine: true, parentTop: true, inParent: true, blockIndent: nil)
                var blocks: [String: [Node]] = [:]
                for node in try self.nodes(in: inner) {
                    switch node {
                    case .block(let block, let children): blocks[block] = children
                    case .text: continue  // text between a parent's blocks is not shown
                    default: throw Failure(description: "only blocks may sit directly inside {{<\(name)}}")
                    }
                }
                nodes.append(.parent(name, blocks))
            case UInt8(ascii: "$"):
                at += 1
                let name = try readName()
                if scope.parentTop {
                    standalone = scope.newLine && finishLine()
                    var inner = scope
                    inner.closing = name
                    inner.parentTop = false
                    inner.newLine = standalone && scope.newLine
                    nodes.append(.block(name, try self.nodes(in: inner)))
                } else {
                    guard before.isEmpty else { throw Failure(description: "an indented block ({{$\(name)}}) is not supported") }
                    standalone = scope.newLine && finishLine()
                    var inner = scope
                    inner.closing = name
                    inner.newLine = standalone && scope.newLine
                    nodes.append(.block(name, try self.nodes(in: inner)))
                }
            case UInt8(ascii: "{"), UInt8(ascii: "&"), UInt8(ascii: ">"), UInt8(ascii: "!"), UInt8(ascii: "="):
                throw Failure(description: "{{\(Character(Unicode.Scalar(kind)))…}} is outside the templates' subset")
            default:
                flush(&nodes, &before)
                nodes.append(.value(Self.path(try readName())))
            }
            scope.newLine = standalone
        }
        guard outer.closing == nil else { throw Failure(description: "{{\(outer.closing ?? "")}} is never closed") }
        return nodes
    }

    /// `a.b` as its parts; `.` as none (the top of the stack).
    private static func path(_ name: String) -> [String] {
        name == "." ? [] : name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    private mutating func readBlanks() -> [UInt8] {
        let start = at
        while !atEnd, text[at] == Self.space || text[at] == Self.tab { at += 1 }
        return Array(text[start..<at])
    }

    /// Text up to the next newline or `{{` (which is read too); a lone `{` is text.
    private mutating func readText() -> [UInt8] {
        let start = at
        while !atEnd {
            if text[at] == Self.newline { return Array(text[start..<at]) }
            if text[at] == Self.open[0], at + 1 < text.count, text[at + 1] == Self.open[1] {
                let run = Array(text[start..<at])
                at += 2
                return run
            }
            at += 1
        }
        return Array(text[start..<at])
    }

    /// A name and the `}}` after it, blanks allowed around it.
    private mutating func readName() throws -> String {
        _ = readWhitespace()
        let start = at
        while !atEnd, Self.isNameByte(text[at]) { at += 1 }
        let name = String(decoding: text[start..<at], as: UTF8.self)
        _ = readWhitespace()
        guard !name.isEmpty, at + 1 < text.count, text[at] == Self.close[0], text[at + 1] == Self.close[1] else {
            throw Failure(description: "a tag's name (\(name)) is not followed by }}")
        }
        at += 2
        guard name == "." || !name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw Failure(description: "\(name) has an empty part")
        }
        return name
    }

    private mutating func readWhitespace() -> Int {
        let start = at
        while !atEnd, [Self.space, Self.tab, Self.newline, UInt8(ascii: "\r")].contains(text[at]) { at += 1 }
        return at - start
    }

    private mutating func skipTag() throws {
        while !atEnd {
            if text[at] == Self.close[0], at + 1 < text.count, text[at + 1] == Self.close[1] {
                at += 2
                return
            }
            at += 1
        }
        throw Failure(description: "a pragma is never closed")
    }

    /// Letters, digits and `.-_?`: the names swift-mustache reads (without its transforms' brackets and `*`).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "?"): true
        default: false
        }
    }

    /// When only blanks are left on the line: moves past them and the newline (or to the end) and answers true.
    private mutating func finishLine() -> Bool {
        if atEnd { return true }
        var probe = at
        while probe < text.count, text[probe] == Self.space || text[probe] == Self.tab { probe += 1 }
        guard probe < text.count, text[probe] == Self.newline else { return false }
        at = probe + 1
        return true
    }
}
