#if canImport(SwiftUI) && canImport(CoreImage)
    import CoreImage
    import SwiftUI

    /// A QR code of `payload` (an `otpauth://` key URI), drawn by Core Image's built-in generator
    /// ("CIQRCodeGenerator", https://developer.apple.com/documentation/coreimage/ciqrcodegenerator) and scaled
    /// up without smoothing, so every module stays a sharp square a camera can read.
    struct QRCodeImage: View {
        let payload: Data

        var body: some View {
            if let image = Self.render(payload) {
                Image(decorative: image, scale: 1)
                    .interpolation(.none)
                    .resizable()
                    .scaledToFit()
                    .frame(width: 220, height: 220)
                    .accessibilityLabel("QR code of the key for your authenticator app")
            }
        }

        /// One pixel per module; nil when Core Image cannot make it.
        static func render(_ payload: Data) -> CGImage? {
            guard let filter = CIFilter(name: "CIQRCodeGenerator") else { return nil }
            filter.setValue(payload, forKey: "inputMessage")
            filter.setValue("M", forKey: "inputCorrectionLevel")
            guard let output = filter.outputImage else { return nil }
            return CIContext().createCGImage(output, from: output.extent)
        }
    }
#endif
