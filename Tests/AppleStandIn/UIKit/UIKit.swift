@_exported import Foundation

/// UIKit's view base class, as far as `UIViewRepresentable` and `WKWebView` need it.
@MainActor open class UIView: NSObject {
    public init(frame: CGRect) { super.init() }
}

/// UIKit's controller base class (examples present Google Sign-In from one).
@MainActor open class UIViewController: NSObject {
    open var view: UIView!
    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil) {}
}

/// The app's windows, to find the controller that presents a sheet.
@MainActor open class UIWindow: UIView {
    open var rootViewController: UIViewController?
    open var isKeyWindow: Bool { false }
}

@MainActor open class UIScene: NSObject {}

@MainActor open class UIWindowScene: UIScene {
    open var windows: [UIWindow] { [] }
}

@MainActor open class UIApplication: NSObject {
    public class var shared: UIApplication { fatalError() }
    open var connectedScenes: Set<UIScene> { [] }
    public static let protectedDataDidBecomeAvailableNotification = Notification.Name("UIApplicationProtectedDataDidBecomeAvailable")
}
