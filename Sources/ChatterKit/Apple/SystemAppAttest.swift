#if canImport(DeviceCheck)
    import DeviceCheck
    import Foundation

    /// `DCAppAttestService.shared`, its failures as `AppAttestProblem`. The logic that uses it (`AppAttestation`) is
    /// ChatterKit's, tested on Linux with a simulated device; this is only the shell.
    /// https://developer.apple.com/documentation/devicecheck/dcappattestservice
    public struct SystemAppAttest: AppAttestProvider {
        /// The system's App Attest service.
        public init() {}

        /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/issupported
        public var isSupported: Bool { DCAppAttestService.shared.isSupported }

        /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/generatekey(completionhandler:)
        public func generateKey() async throws -> String {
            try await Self.translating { try await DCAppAttestService.shared.generateKey() }
        }

        /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/attestkey(_:clientdatahash:completionhandler:)
        public func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
            try await Self.translating { try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: clientDataHash) }
        }

        /// https://developer.apple.com/documentation/devicecheck/dcappattestservice/generateassertion(_:clientdatahash:completionhandler:)
        public func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
            try await Self.translating { try await DCAppAttestService.shared.generateAssertion(keyID, clientDataHash: clientDataHash) }
        }

        /// Apple's `DCError` codes as `AppAttestProblem` (https://developer.apple.com/documentation/devicecheck/dcerror/code).
        static func translating<T>(_ call: () async throws -> T) async throws -> T {
            do {
                return try await call()
            } catch let error as DCError {
                switch error.code {
                case .featureUnsupported: throw AppAttestProblem.featureUnsupported
                case .serverUnavailable: throw AppAttestProblem.serverUnavailable
                case .invalidKey: throw AppAttestProblem.invalidKey
                default: throw AppAttestProblem.failed(error.localizedDescription)
                }
            }
        }
    }
#endif
