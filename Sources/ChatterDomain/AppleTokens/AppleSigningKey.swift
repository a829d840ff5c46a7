import ChatterCore
import Crypto
import Foundation
import JWTKit

/// The operator's Sign in with Apple key (the `.p8` file Apple's developer site hands out once, with its key
/// ID) and the team it belongs to: what chatterd signs its client secrets with.
public struct AppleSigningKey: Sendable {
    public let teamID: String
    public let keyID: String
    package let key: ES256PrivateKey

    /// A key from the `.p8` file's text (PKCS #8 PEM, an ECDSA P-256 private key).
    public init(teamID: String, keyID: String, pem: String) throws {
        // Apple's team and key IDs are ten upper-case letters and digits; anything else is a mistyped setting,
        // better refused at start than as `invalid_client` at the first sign-in.
        for (name, value) in [("--apple-team-id", teamID), ("--apple-key-id", keyID)] {
            guard value.count == 10, value.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw ConfigurationError("\(name): \(value) is not an Apple ID (ten upper-case letters and digits)")
            }
        }
        do { key = try ES256PrivateKey(pem: pem) } catch {
            throw ConfigurationError("--apple-private-key: not an ECDSA P-256 private key in PEM (a .p8 file from Apple)")
        }
        self.teamID = teamID
        self.keyID = keyID
    }

    /// The key in the file at `path`.
    public static func load(teamID: String, keyID: String, path: String) throws -> AppleSigningKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("--apple-private-key: cannot read \(path)")
        }
        return try AppleSigningKey(teamID: teamID, keyID: keyID, pem: String(decoding: data, as: UTF8.self))
    }
}

/// The client secret chatterd presents at Apple's token and revoke endpoints: a JWT signed with the
/// operator's key, as "Creating a client secret" documents
/// (https://developer.apple.com/documentation/accountorganizationaldatasharing/creating-a-client-secret):
/// header `alg` ES256 and `kid` the key ID; claims `iss` the team ID, `iat` now, `exp` at most 15,777,000 s
/// (six months) later, `aud` `https://appleid.apple.com` and `sub` the client ID (the app's bundle ID or a
/// Services ID).
package struct AppleClientSecret: JWTPayload {
    package static let audience = "https://appleid.apple.com"
    /// Apple allows six months; a secret made for one request needs minutes, and one that leaks is worth little.
    package static let lifetime: Double = 300

    package var iss: String
    package var iat: Int
    package var exp: Int
    package var aud: String
    package var sub: String

    package func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// A secret for `clientID`, made now.
    package static func make(for clientID: String, with key: AppleSigningKey, at now: Date) async throws -> String {
        let issued = Int(now.timeIntervalSince1970)
        let claims = AppleClientSecret(iss: key.teamID, iat: issued, exp: issued + Int(lifetime), aud: audience, sub: clientID)
        let keys = await JWTKeyCollection().add(ecdsa: key.key, kid: JWKIdentifier(string: key.keyID))
        var header = JWTHeader()
        header.alg = "ES256"
        header.kid = key.keyID
        return try await keys.sign(claims, header: header)
    }
}
