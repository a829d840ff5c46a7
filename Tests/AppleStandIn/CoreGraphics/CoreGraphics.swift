// CoreGraphics, as far as the project uses it: Foundation on Linux already has CGFloat and CGRect.

/// https://developer.apple.com/documentation/coregraphics/cgimage — a bitmap; made by `CIContext.createCGImage`.
public final class CGImage {
    /// https://developer.apple.com/documentation/coregraphics/cgimage/width
    public var width: Int { fatalError() }
    /// https://developer.apple.com/documentation/coregraphics/cgimage/height
    public var height: Int { fatalError() }
}
