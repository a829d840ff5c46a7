import ChatterCore
import ChatterDomain
import ChatterStorage
import Mustache

/// A value a template reads, handing its fields over by name instead of through reflection.
///
/// swift-mustache looks `{{name}}` up with `MustacheParent.child(named:)` where a value offers it, and with
/// `Mirror` otherwise. A `Mirror` builds every stored property of the value, names demangled, for each
/// lookup: that was 71 % of the timeline page's time under load (BENCHMARKS.md, "Pages"). So every page and
/// every value inside one lists its stored properties in `child(named:)`, beside their declarations.
/// `TemplateFieldsCheck.problems(in:path:)` compares such a list with the properties themselves; debug builds check
/// every page they render with it (`WebPages.render`), so a property added but not listed, or listed under
/// another's name, fails the tests instead of rendering blank.
protocol TemplateFields: MustacheParent {}

enum TemplateFieldsCheck {
    /// Stored properties of `value`, and of every `TemplateFields` value inside it, that `child(named:)`
    /// does not give back as they are, by path; and values inside that a template would read by reflection.
    static func problems(in value: Any, path: String) -> [String] {
        if let fields = value as? any TemplateFields {
            var found: [String] = []
            for property in Mirror(reflecting: value).children {
                guard let label = property.label else { continue }
                let inner = unwrapped(property.value)
                let listed = fields.child(named: label).flatMap(unwrapped)
                if String(describing: inner) != String(describing: listed) {
                    found.append("\(path).\(label) is not listed as itself")
                } else if let inner {
                    found += problems(in: inner, path: "\(path).\(label)")
                }
            }
            return found
        }
        if let array = value as? [Any] {
            return array.enumerated().flatMap { problems(in: $0.element, path: "\(path)[\($0.offset)]") }
        }
        // Anything else with stored properties of its own would be read through `Mirror`.
        if value is any MustacheParent || value is String || value is Bool || value is Int || value is Double { return [] }
        let style = Mirror(reflecting: value).displayStyle
        return style == .struct || style == .class || style == .enum ? ["\(path) (\(type(of: value))) is read by reflection"] : []
    }

    /// The value inside an optional, or nil; any other value as it is.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}

/// A string renders as itself. swift-mustache renders `{{name}}` by asking, in turn, whether the value is a
/// template, a `MustacheCustomRenderable`, a lambda or an optional, and then calls `String(describing:)`:
/// four conformance lookups in the Swift runtime for every string on a page. A string stops at the second,
/// with the same text, escaped the same way (`HTMLText`); `isNull` is false, as for any value but nil.
/// (−3.2 % of the account page's instructions, −2.3 % of the signed-out timeline's: BENCHMARKS.md.)
///
/// Retroactive: swift-mustache 2.1.1 declares no conformance of its own for `String`. Should a later version
/// add one, `RenderingTests.aStringRendersAsItselfEscapedWhicheverWayATemplateReadsIt` still holds every
/// way a template reads a string to the same escaped text. A wrapper type instead (each page's strings
/// handed over in it) measured no faster than no conformance at all: its own cast cost what this saves.
// swift-format-ignore: AvoidRetroactiveConformances
extension String: @retroactive MustacheCustomRenderable {
    public var renderText: String { self }
    public var isNull: Bool { false }
}
