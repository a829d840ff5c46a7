// CoreImage, as far as the project uses it: the QR code generator and turning its image into a CGImage.
@_exported import CoreGraphics
@_exported import Foundation

/// https://developer.apple.com/documentation/coreimage/ciimage — an image recipe, rendered by a `CIContext`.
public final class CIImage {
    /// https://developer.apple.com/documentation/coreimage/ciimage/extent — for the QR generator, one unit per module.
    public var extent: CGRect { fatalError() }
}

/// https://developer.apple.com/documentation/coreimage/cicontext
public final class CIContext {
    /// https://developer.apple.com/documentation/coreimage/cicontext/init()
    public init() {}
    /// https://developer.apple.com/documentation/coreimage/cicontext/createcgimage(_:from:) — nil when it cannot render.
    public func createCGImage(_ image: CIImage, from fromRect: CGRect) -> CGImage? { fatalError() }
}

/// https://developer.apple.com/documentation/coreimage/cifilter — filters by name, set through key-value coding.
open class CIFilter {
    /// https://developer.apple.com/documentation/coreimage/cifilter/init(name:) — nil for a name Core Image does
    /// not know ("CIQRCodeGenerator" is built in: https://developer.apple.com/documentation/coreimage/ciqrcodegenerator).
    public init?(name: String) {}
    /// Key-value coding (NSObject's `setValue(_:forKey:)`): the QR generator takes "inputMessage" (Data) and
    /// "inputCorrectionLevel" ("L", "M", "Q" or "H").
    open func setValue(_ value: Any?, forKey key: String) {}
    /// https://developer.apple.com/documentation/coreimage/cifilter/outputimage — nil when the inputs make no image.
    open var outputImage: CIImage? { fatalError() }
}
