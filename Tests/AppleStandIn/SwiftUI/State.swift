@propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    @preconcurrency public init(
        @_inheritActorContext get: @escaping @isolated(any) @Sendable () -> Value,
        @_inheritActorContext set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { fatalError() }
    public static func constant(_ value: Value) -> Binding<Value> { fatalError() }
}

extension Binding: @unchecked Sendable where Value: Sendable {}

/// SwiftUI's bindings into an `@Observable` object.
@propertyWrapper @dynamicMemberLookup public struct Bindable<Value> {
    public init(wrappedValue: Value) where Value: AnyObject & Observable {}
    public init(_ wrappedValue: Value) where Value: AnyObject & Observable {}
    public var wrappedValue: Value {
        get { fatalError() }
        set {}
    }
    public var projectedValue: Bindable<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>) -> Binding<Subject> where Value: AnyObject {
        fatalError()
    }
}

@propertyWrapper public struct State<Value> {
    public init(wrappedValue value: Value) {}
    public init(initialValue value: Value) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError() }
}

@propertyWrapper public struct Environment<Value> {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError() }
}

public struct EnvironmentValues {
    public var colorScheme: ColorScheme { fatalError() }
    public var scenePhase: ScenePhase { fatalError() }
    public var openURL: OpenURLAction { fatalError() }
    public var dismiss: DismissAction { fatalError() }
}

public enum ColorScheme: Hashable, Sendable, CaseIterable {
    case light, dark
}

public enum ScenePhase: Hashable, Sendable, Comparable {
    case background, inactive, active
}

public struct OpenURLAction {
    @MainActor public func callAsFunction(_ url: URL) {}
}

public struct DismissAction {
    @MainActor public func callAsFunction() {}
}
