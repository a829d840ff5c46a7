@_exported import Foundation

// DeviceCheck's App Attest service, as ChatterKit's SystemAppAttest uses it. Each declaration follows the page cited
// beside it; nothing here runs.

/// https://developer.apple.com/documentation/devicecheck/dcappattestservice
public final class DCAppAttestService: @unchecked Sendable {
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/shared
    public static let shared = DCAppAttestService()
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/issupported
    public var isSupported: Bool { fatalError() }
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/generatekey(completionhandler:)
    public func generateKey() async throws -> String { fatalError() }
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/attestkey(_:clientdatahash:completionhandler:)
    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data { fatalError() }
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/generateassertion(_:clientdatahash:completionhandler:)
    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data { fatalError() }
}

/// https://developer.apple.com/documentation/devicecheck/dcerror (a bridged error: a struct with a `code`).
public struct DCError: Error, Sendable {
    /// https://developer.apple.com/documentation/devicecheck/dcerror/code (raw values: DCError.h)
    public enum Code: Int, Sendable {
        case unknownSystemFailure = 0
        case featureUnsupported = 1
        case invalidInput = 2
        case invalidKey = 3
        case serverUnavailable = 4
    }
    public var code: Code
}
