extension View {
    public func font(_ font: Font?) -> some View { _Modified(self) }
    public func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View { _Modified(self) }
    public func tint<S: ShapeStyle>(_ tint: S?) -> some View { _Modified(self) }
    public func multilineTextAlignment(_ alignment: TextAlignment) -> some View { _Modified(self) }
    public func lineLimit(_ limit: ClosedRange<Int>) -> some View { _Modified(self) }
    public func lineLimit(_ number: Int?) -> some View { _Modified(self) }

    public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { _Modified(self) }
    public func padding(_ length: CGFloat) -> some View { _Modified(self) }
    /// https://developer.apple.com/documentation/swiftui/view/scaledtofit()
    public func scaledToFit() -> some View { _Modified(self) }
    public func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center) -> some View { _Modified(self) }
    public func frame(
        minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil,
        idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
    ) -> some View { _Modified(self) }
    public func background<S: ShapeStyle>(_ style: S, ignoresSafeAreaEdges edges: Edge.Set = .all) -> some View { _Modified(self) }
    public func background<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View { _Modified(self) }
    public func overlay<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View { _Modified(self) }
    public func opacity(_ opacity: Double) -> some View { _Modified(self) }
    public func safeAreaInset<V: View>(
        edge: VerticalEdge, alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> V
    ) -> some View { _Modified(self) }

    public func disabled(_ disabled: Bool) -> some View { _Modified(self) }
    public func buttonStyle<S: PrimitiveButtonStyle>(_ style: S) -> some View { _Modified(self) }
    public func labelStyle<S: LabelStyle>(_ style: S) -> some View { _Modified(self) }
    public func autocorrectionDisabled(_ disable: Bool = true) -> some View { _Modified(self) }

    public func accessibilityLabel(_ label: Text) -> some View { _Modified(self) }
    public func accessibilityLabel(_ labelKey: LocalizedStringKey) -> some View { _Modified(self) }
    @_disfavoredOverload public func accessibilityLabel<S: StringProtocol>(_ label: S) -> some View { _Modified(self) }
    @_disfavoredOverload public func accessibilityValue<S: StringProtocol>(_ value: S) -> some View { _Modified(self) }
    public func accessibilityAddTraits(_ traits: AccessibilityTraits) -> some View { _Modified(self) }
    public func accessibilityElement(children: AccessibilityChildBehavior = .ignore) -> some View { _Modified(self) }

    public func task(priority: TaskPriority = .userInitiated, @_inheritActorContext _ action: sending @escaping @isolated(any) () async -> Void) -> some View {
        _Modified(self)
    }
    public func refreshable(action: @escaping @Sendable () async -> Void) -> some View { _Modified(self) }
    public func onAppear(perform action: (() -> Void)? = nil) -> some View { _Modified(self) }
    public func onSubmit(of triggers: SubmitTriggers = .text, _ action: @escaping () -> Void) -> some View { _Modified(self) }
    public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void) -> some View {
        _Modified(self)
    }
    public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping () -> Void) -> some View { _Modified(self) }
    public func onOpenURL(perform action: @escaping (URL) -> Void) -> some View { _Modified(self) }

    public func sheet<Content: View>(isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content)
        -> some View
    { _Modified(self) }
    public func presentationDetents(_ detents: Set<PresentationDetent>) -> some View { _Modified(self) }
    public func confirmationDialog<A: View, M: View>(
        _ titleKey: LocalizedStringKey, isPresented: Binding<Bool>, titleVisibility: Visibility = .automatic,
        @ViewBuilder actions: () -> A, @ViewBuilder message: () -> M
    ) -> some View { _Modified(self) }
    public func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { _Modified(self) }
    @_disfavoredOverload public func navigationTitle<S: StringProtocol>(_ title: S) -> some View { _Modified(self) }
    public func toolbar<Content: ToolbarContent>(@ToolbarContentBuilder content: () -> Content) -> some View { _Modified(self) }
    public func tabItem<V: View>(@ViewBuilder _ label: () -> V) -> some View { _Modified(self) }
    public func environment<T: AnyObject & Observable>(_ object: T?) -> some View { _Modified(self) }
    /// https://developer.apple.com/documentation/swiftui/view/id(_:)
    public func id<ID: Hashable>(_ id: ID) -> some View { _Modified(self) }
}

public protocol ToolbarContent {}

public struct ToolbarItemPlacement: Sendable {
    public static let automatic = ToolbarItemPlacement(), cancellationAction = ToolbarItemPlacement()
    public static let confirmationAction = ToolbarItemPlacement(), primaryAction = ToolbarItemPlacement()
}

public struct ToolbarItem<ID, Content: View>: ToolbarContent {
    public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) where ID == () {}
}

@resultBuilder public struct ToolbarContentBuilder {
    public static func buildBlock<C: ToolbarContent>(_ content: C) -> C { content }
}
