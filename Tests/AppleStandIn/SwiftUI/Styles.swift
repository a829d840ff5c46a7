// swift-format-ignore-file: DontRepeatTypeInStaticProperties
// The stand-in keeps the names of the SwiftUI API it stands in for (`accentColor`, `thinMaterial`).

public protocol ShapeStyle: Sendable {}

public struct Color: View, ShapeStyle, Hashable {
    public static let red = Color(), orange = Color(), yellow = Color(), green = Color(), blue = Color()
    public static let white = Color(), black = Color(), gray = Color(), secondary = Color(), accentColor = Color()
    public var body: Never { fatalError() }
}

extension ShapeStyle where Self == Color {
    public static var red: Color { .red }
    public static var orange: Color { .orange }
    public static var yellow: Color { .yellow }
    public static var green: Color { .green }
    public static var white: Color { .white }
    public static var black: Color { .black }
}

public struct HierarchicalShapeStyle: ShapeStyle {
    public static let primary = HierarchicalShapeStyle(), secondary = HierarchicalShapeStyle(), tertiary = HierarchicalShapeStyle()
}

extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { .primary }
    public static var secondary: HierarchicalShapeStyle { .secondary }
    public static var tertiary: HierarchicalShapeStyle { .tertiary }
}

public struct TintShapeStyle: ShapeStyle {}

extension ShapeStyle where Self == TintShapeStyle {
    public static var tint: TintShapeStyle { TintShapeStyle() }
}

public struct BackgroundStyle: ShapeStyle {}

extension ShapeStyle where Self == BackgroundStyle {
    public static var background: BackgroundStyle { BackgroundStyle() }
}

public struct Material: ShapeStyle {
    public static let regularMaterial = Material(), thinMaterial = Material(), ultraThinMaterial = Material(), bar = Material()
}

extension ShapeStyle where Self == Material {
    public static var regularMaterial: Material { .regularMaterial }
    public static var thinMaterial: Material { .thinMaterial }
    public static var ultraThinMaterial: Material { .ultraThinMaterial }
}

public struct Font: Hashable, Sendable {
    public enum Weight: Hashable, Sendable { case regular, medium, semibold, bold }
    public enum Design: Hashable, Sendable { case `default`, rounded, monospaced, serif }
    public static let largeTitle = Font(), title = Font(), title2 = Font(), title3 = Font(), headline = Font()
    public static let subheadline = Font(), body = Font(), callout = Font(), footnote = Font(), caption = Font(), caption2 = Font()
    public static func system(size: CGFloat, weight: Weight? = nil, design: Design? = nil) -> Font { Font() }
    public func bold() -> Font { self }
    public func weight(_ weight: Weight) -> Font { self }
    /// https://developer.apple.com/documentation/swiftui/font/monospaced()
    public func monospaced() -> Font { self }
}

public enum TextAlignment: Hashable, Sendable { case leading, center, trailing }

public protocol PrimitiveButtonStyle {}
public struct BorderlessButtonStyle: PrimitiveButtonStyle {}
public struct BorderedButtonStyle: PrimitiveButtonStyle {}
public struct BorderedProminentButtonStyle: PrimitiveButtonStyle {}
public struct PlainButtonStyle: PrimitiveButtonStyle {}

extension PrimitiveButtonStyle where Self == BorderlessButtonStyle {
    public static var borderless: BorderlessButtonStyle { BorderlessButtonStyle() }
}
extension PrimitiveButtonStyle where Self == BorderedButtonStyle {
    public static var bordered: BorderedButtonStyle { BorderedButtonStyle() }
}
extension PrimitiveButtonStyle where Self == BorderedProminentButtonStyle {
    public static var borderedProminent: BorderedProminentButtonStyle { BorderedProminentButtonStyle() }
}
extension PrimitiveButtonStyle where Self == PlainButtonStyle {
    public static var plain: PlainButtonStyle { PlainButtonStyle() }
}

public protocol LabelStyle {}
public struct IconOnlyLabelStyle: LabelStyle {}
public struct TitleOnlyLabelStyle: LabelStyle {}
extension LabelStyle where Self == IconOnlyLabelStyle {
    public static var iconOnly: IconOnlyLabelStyle { IconOnlyLabelStyle() }
}
extension LabelStyle where Self == TitleOnlyLabelStyle {
    public static var titleOnly: TitleOnlyLabelStyle { TitleOnlyLabelStyle() }
}

public struct Edge {
    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let top = Set(rawValue: 1), leading = Set(rawValue: 2), bottom = Set(rawValue: 4), trailing = Set(rawValue: 8)
        public static let all: Set = [.top, .leading, .bottom, .trailing]
        public static let horizontal: Set = [.leading, .trailing]
        public static let vertical: Set = [.top, .bottom]
    }
}

public enum VerticalEdge: Hashable, Sendable { case top, bottom }

public struct AccessibilityTraits: Sendable {
    public static let isStaticText = AccessibilityTraits(), isHeader = AccessibilityTraits(), isButton = AccessibilityTraits()
}

public struct AccessibilityChildBehavior: Sendable {
    public static let ignore = AccessibilityChildBehavior(), combine = AccessibilityChildBehavior(), contain = AccessibilityChildBehavior()
}

public enum Visibility: Hashable, Sendable { case automatic, visible, hidden }

public struct PresentationDetent: Hashable, Sendable {
    public static let medium = PresentationDetent(), large = PresentationDetent()
}

public struct SubmitTriggers: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let text = SubmitTriggers(rawValue: 1)
}
