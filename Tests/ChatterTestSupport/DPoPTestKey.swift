import ChatterCore
import ChatterDomain
import Crypto
import Foundation

/// A client's DPoP key (RFC 9449) in software, as the `chatter` tool keeps one: makes proofs over any
/// method, URL, access token and nonce, and any time, so tests can make the proofs a client would and the
/// ones an attacker would.
public struct DPoPTestKey: Sendable {
    public let key: P256.Signing.PrivateKey

    public init(key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) {
        self.key = key
    }

    var coordinates: (x: String, y: String) {
        let raw = Array(key.publicKey.rawRepresentation)
        return (Base64URL.encode(raw.prefix(32)), Base64URL.encode(raw.suffix(32)))
    }

    /// RFC 7638's thumbprint of the public key, as chatterd binds a session to it.
    public var thumbprint: String {
        let (x, y) = coordinates
        return DPoPVerifier.thumbprint(x: x, y: y)
    }

    /// A proof for `method` on `url`, with `ath` when `accessToken` is given. `header` and `claims` replace
    /// or add members, for proofs a client should never make (`header["jwk-extra"]` and `header["extra"]` are
    /// JSON text added to the key and to the header, `header["whole"]` the whole header).
    public func proof(
        _ method: String, _ url: String, accessToken: String? = nil, nonce: String? = nil, at issued: Date, jti: String = UUID().uuidString,
        header extraHeader: [String: String] = [:], claims extraClaims: [String: String] = [:]
    ) -> String {
        let (x, y) = coordinates
        var header =
            #"{"typ":"\#(extraHeader["typ"] ?? "dpop+jwt")","alg":"\#(extraHeader["alg"] ?? "ES256")","jwk":{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)"\#(extraHeader["jwk-extra"] ?? "")}\#(extraHeader["extra"] ?? "")}"#
        if let replaced = extraHeader["whole"] { header = replaced }
        var claims = #"{"jti":"\#(jti)","htm":"\#(method)","htu":"\#(url)","iat":\#(Int(issued.timeIntervalSince1970))"#
        if let accessToken { claims += #","ath":"\#(DPoPVerifier.accessTokenHash(accessToken))""# }
        if let nonce { claims += #","nonce":"\#(nonce)""# }
        for (name, value) in extraClaims.sorted(by: { $0.key < $1.key }) { claims += #","\#(name)":\#(value)"# }
        claims += "}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        // fail-closed: signing with an in-memory P-256 key does not fail; a test would see an unsigned proof refused
        let signature = (try? key.signature(for: Array(input.utf8)).rawRepresentation).map(Array.init) ?? []
        return input + "." + Base64URL.encode(signature)
    }
}
