import ChatterCore
import Foundation

/// `CollectedClientData` (WebAuthn §5.8.1): what the browser or the platform says it asked the
/// authenticator to sign. Its hash is what the signature covers, so the JSON bytes are kept as received.
public struct ClientData: Sendable, Decodable {
    public var type: String
    public var challenge: String
    public var origin: String
    public var crossOrigin: Bool?
    public var topOrigin: String?

    /// Real client data is a few hundred bytes; this bounds the work hostile input can cause.
    public static let maximumBytes = 4096

    public static func parse(_ bytes: [UInt8]) -> ClientData? {
        guard bytes.count <= maximumBytes else { return nil }
        // fail-closed: client data that is not JSON of the expected shape is nil, and every caller refuses the ceremony
        return try? JSONDecoder().decode(ClientData.self, from: Data(bytes))
    }
}
