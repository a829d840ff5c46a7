import ChatterCore
import Crypto
import Foundation

/// A DPoP proof (RFC 9449 §4) that passed every check of its own: its signature by the key in its header,
/// its type and algorithm, and what it names (method, URL, time, access token, nonce). Whether its `jti` was
/// seen before is the store's to say (`DPoPProofRepository`), and whether its key holds the session the
/// caller's to check.
public struct DPoPProof: Sendable, Equatable {
    /// The key's JWK thumbprint (RFC 7638): what a session is bound to.
    public var thumbprint: String
    public var jti: String
    public var issuedAt: Date
}

/// The request a proof must name (RFC 9449 §4.3, checks 8 and 9).
public struct DPoPTarget: Sendable, Equatable {
    public var method: String
    /// The request's authority (`Host`), lowercased by the caller or not: compared without case.
    public var authority: String
    /// The request's path without its query.
    public var path: String

    public init(method: String, authority: String, path: String) {
        self.method = method
        self.authority = authority
        self.path = path
    }
}

/// Parses and checks DPoP proofs: ES256 only, the key in the header as a P-256 JWK with no private part.
public struct DPoPVerifier: Sendable {
    /// A proof is a few hundred bytes; a header past this is refused before any parsing.
    public static let maximumLength = 2048
    /// A proof is accepted from `pastWindow` seconds after its `iat`: the same span bounds how long its `jti`
    /// is kept (`keepUntil`). A client's clock may run `futureSkew` seconds ahead.
    public var pastWindow: Double = 120
    public var futureSkew: Double = 60
    /// Set when the operator asks for server nonces (RFC 9449 §8): a proof must then carry a current one.
    public var nonces: DPoPNonces?

    public init(nonces: DPoPNonces? = nil) {
        self.nonces = nonces
    }

    /// Until when a proof's `jti` must be remembered: after that its `iat` is too old to be accepted again.
    public func keepUntil(_ proof: DPoPProof) -> Date {
        proof.issuedAt.addingTimeInterval(pastWindow)
    }

    /// Checks `text` (a `DPoP` header's value) against the request it came with. `accessToken`: the token
    /// the request presents, whose hash the proof must carry as `ath`; nil where none is presented (sign-in,
    /// refresh), when an `ath` is not asked for.
    public func verify(_ text: String, for target: DPoPTarget, accessToken: String?, at now: Date) throws(DPoPError) -> DPoPProof {
        guard text.utf8.count <= Self.maximumLength else { throw .rejected(.malformed, "the proof is longer than \(Self.maximumLength) bytes") }
        let utf8 = Array(text.utf8)
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")), let secondDot = utf8[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !utf8[(secondDot + 1)...].contains(UInt8(ascii: ".")), let headerBytes = Base64URL.decode(bytes: utf8[..<firstDot]),
            let payloadBytes = Base64URL.decode(bytes: utf8[(firstDot + 1)..<secondDot]),
            let signature = Base64URL.decode(bytes: utf8[(secondDot + 1)...])
        else { throw .rejected(.malformed, "the proof is not a compact JWS of three base64url parts") }
        guard let header = Header(ProofJSON.object(headerBytes)), let claims = Claims(ProofJSON.object(payloadBytes)) else {
            throw .rejected(.malformed, "the proof's header or claims are not the JSON RFC 9449 describes")
        }
        // RFC 7515 §4.1.11: a header naming extensions the recipient must understand is invalid unless it does;
        // chatterd understands none.
        guard !header.critical else { throw .rejected(.malformed, "the proof's header names critical extensions (crit)") }
        // Compared as bytes: Swift's `==` on strings equates canonically equivalent ones (U+212A KELVIN SIGN and K).
        guard header.typ.utf8.elementsEqual("dpop+jwt".utf8) else { throw .rejected(.type, "the proof's typ is not dpop+jwt") }
        guard header.alg.utf8.elementsEqual("ES256".utf8) else { throw .rejected(.algorithm, "only ES256 proofs are accepted") }
        let key = try Self.publicKey(header.jwk)
        guard signature.count == 64,
            // fail-closed: a signature that is not 64 bytes of r and s is refused as a bad signature
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.key.isValidSignature(ecdsa, for: utf8[..<secondDot])
        else { throw .rejected(.signature, "the proof's signature does not verify with the key in its header") }
        guard claims.htm.utf8.elementsEqual(target.method.utf8) else { throw .rejected(.method, "the proof names another method than \(target.method)") }
        guard Self.names(claims.htu, target) else { throw .rejected(.url, "the proof's htu is not this request's URL") }
        let issued = Date(timeIntervalSince1970: claims.iat)
        guard claims.iat.isFinite, issued.timeIntervalSince(now) <= futureSkew, now.timeIntervalSince(issued) <= pastWindow else {
            throw .rejected(.issuedAt, "the proof's iat is not within \(Int(pastWindow)) seconds of now")
        }
        guard !claims.jti.isEmpty, claims.jti.utf8.count <= 256 else { throw .rejected(.malformed, "the proof's jti is empty or too long") }
        if let accessToken {
            guard let ath = claims.ath, constantTimeEqual(Array(ath.utf8), Array(Self.accessTokenHash(accessToken).utf8)) else {
                throw .rejected(.accessTokenHash, "the proof's ath is not the hash of the access token sent with it")
            }
        }
        if let nonces {
            guard let nonce = claims.nonce, nonces.isCurrent(nonce, at: now) else { throw .nonce(fresh: nonces.current(at: now)) }
        }
        return DPoPProof(thumbprint: key.thumbprint, jti: claims.jti, issuedAt: issued)
    }

    /// `ath` (RFC 9449 §4.2): base64url of the SHA-256 of the access token's ASCII.
    public static func accessTokenHash(_ token: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(token.utf8))))
    }

    /// The JWK thumbprint (RFC 7638 §3) of a P-256 key given by its coordinates, as members sorted by name.
    public static func thumbprint(x: String, y: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8))))
    }

    private static func publicKey(_ jwk: JWK) throws(DPoPError) -> (key: P256.Signing.PublicKey, thumbprint: String) {
        guard jwk.kty.utf8.elementsEqual("EC".utf8), jwk.crv.utf8.elementsEqual("P-256".utf8) else {
            throw .rejected(.key, "the proof's key is not a P-256 EC key")
        }
        guard !jwk.hasPrivatePart else { throw .rejected(.key, "the proof's header carries a private key") }
        // Each coordinate in its one canonical spelling, so one key has one thumbprint.
        guard let x = Base64URL.decode(jwk.x), let y = Base64URL.decode(jwk.y), x.count == 32, y.count == 32,
            Base64URL.encode(x) == jwk.x, Base64URL.encode(y) == jwk.y,
            // fail-closed: coordinates off the curve are refused as a bad key
            let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
        else { throw .rejected(.key, "the proof's key is not a point on P-256") }
        return (key, thumbprint(x: jwk.x, y: jwk.y))
    }

    /// Whether `htu` is the request's URL (RFC 9449 §4.3 check 9): http or https, the request's authority
    /// (ASCII letters without case; a default port may be spelt or left out), its path exactly, no query or
    /// fragment compared. The scheme is not compared: behind a TLS-terminating proxy chatterd sees plain HTTP.
    /// Read as bytes, not with `URLComponents` (about 9 µs of a bound refresh's CPU): no user or password,
    /// and nothing is decoded or folded, so only the request's own spelling matches.
    static func names(_ htu: String, _ target: DPoPTarget) -> Bool {
        let url = Array(htu.utf8)
        guard url.count <= 1024, let colon = url.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = asciiLowercased(url[..<colon])
        guard scheme == Array("https".utf8) || scheme == Array("http".utf8), url[colon...].starts(with: "://".utf8) else { return false }
        let rest = url[(colon + 3)...]
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        let pathEnd = rest[authorityEnd...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        let defaultPort = Array((scheme.count == 5 ? ":443" : ":80").utf8)
        func withoutDefaultPort(_ authority: [UInt8]) -> [UInt8] {
            authority.count > defaultPort.count && authority.suffix(defaultPort.count).elementsEqual(defaultPort)
                ? Array(authority.dropLast(defaultPort.count)) : authority
        }
        let authority = withoutDefaultPort(asciiLowercased(rest[..<authorityEnd]))
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return false }
        return authority == withoutDefaultPort(asciiLowercased(target.authority.utf8)) && rest[authorityEnd..<pathEnd].elementsEqual(target.path.utf8)
    }

    private static func asciiLowercased(_ bytes: some Collection<UInt8>) -> [UInt8] {
        bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }

    /// The proof's key (RFC 7517), as far as the checks read it.
    struct JWK: Equatable {
        var kty: String
        var crv: String
        var x: String
        var y: String
        /// Whether it has a `d` member at all: a private key, or a client that meant to send one.
        var hasPrivatePart: Bool

        init?(_ members: [String: ProofJSONValue]?) {
            guard let members, case .string(let kty) = members["kty"], case .string(let crv) = members["crv"], case .string(let x) = members["x"],
                case .string(let y) = members["y"]
            else { return nil }
            (self.kty, self.crv, self.x, self.y, hasPrivatePart) = (kty, crv, x, y, members["d"] != nil)
        }
    }

    /// The proof's header: `typ`, `alg` and `jwk` must be there; `crit`, in any form, refuses the proof.
    struct Header: Equatable {
        var typ: String
        var alg: String
        var jwk: JWK
        var critical: Bool

        init?(_ members: [String: ProofJSONValue]?) {
            guard let members, case .string(let typ) = members["typ"], case .string(let alg) = members["alg"],
                case .object(let key) = members["jwk"], let jwk = JWK(key)
            else { return nil }
            (self.typ, self.alg, self.jwk, critical) = (typ, alg, jwk, members["crit"] != nil)
        }
    }

    /// The proof's claims: `jti`, `htm`, `htu` and `iat` must be there; `ath` and `nonce` are strings when
    /// given (null is taken for absent, as a decoder would).
    struct Claims: Equatable {
        var jti: String
        var htm: String
        var htu: String
        var iat: Double
        var ath: String?
        var nonce: String?

        init?(_ members: [String: ProofJSONValue]?) {
            guard let members, case .string(let jti) = members["jti"], case .string(let htm) = members["htm"],
                case .string(let htu) = members["htu"], case .number(let iat) = members["iat"]
            else { return nil }
            (self.jti, self.htm, self.htu, self.iat) = (jti, htm, htu, iat)
            guard let ath = Self.optional(members["ath"]), let nonce = Self.optional(members["nonce"]) else { return nil }
            (self.ath, self.nonce) = (ath, nonce)
        }

        /// `.some(nil)` when absent or null, `.some(text)` for a string, nil for any other value.
        private static func optional(_ value: ProofJSONValue?) -> String?? {
            switch value {
            case nil, .null: return .some(nil)
            case .string(let text): return .some(text)
            default: return nil
            }
        }
    }
}
