#if canImport(UIKit)
    import UIKit

    @MainActor @preconcurrency public protocol UIViewRepresentable: View where Self.Body == Never {
        associatedtype UIViewType: UIView
        associatedtype Coordinator = Void
        typealias Context = UIViewRepresentableContext<Self>
        @MainActor func makeUIView(context: Self.Context) -> Self.UIViewType
        @MainActor func updateUIView(_ uiView: Self.UIViewType, context: Self.Context)
        @MainActor func makeCoordinator() -> Self.Coordinator
        /// https://developer.apple.com/documentation/swiftui/uiviewrepresentable/dismantleuiview(_:coordinator:)
        @MainActor static func dismantleUIView(_ uiView: Self.UIViewType, coordinator: Self.Coordinator)
    }

    extension UIViewRepresentable {
        public static func dismantleUIView(_ uiView: Self.UIViewType, coordinator: Self.Coordinator) {}
    }

    extension UIViewRepresentable where Self.Coordinator == Void {
        public func makeCoordinator() {}
    }

    extension UIViewRepresentable {
        public var body: Never { fatalError() }
    }

    @MainActor public struct UIViewRepresentableContext<Representable: UIViewRepresentable> {
        public let coordinator: Representable.Coordinator
    }
#endif
