import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import ChatterWire
import Crypto
import Foundation

/// A passkey authenticator in software, for tests: it answers creation and request options as a platform
/// authenticator does (WebAuthn §6.3.2 and §6.3.3) — a discoverable P-256 credential per registration,
/// `none` attestation, the flags it is told to set — and signs assertions with the credential's key. It
/// builds what a browser would send (`PublicKeyCredential.toJSON()`), client data included.
public final class SoftwareAuthenticator: @unchecked Sendable {
    public struct Credential: Sendable {
        public var id: [UInt8]
        public var rpID: String
        public var userHandle: [UInt8]
        let key: P256.Signing.PrivateKey
        public var signCount: UInt32
    }

    public enum Failure: Error, Equatable {
        /// `excludeCredentials` names a credential this authenticator holds (InvalidStateError).
        case excluded
        /// No discoverable credential for the RP ID (NotAllowedError).
        case noCredential
    }

    public let origin: String
    public var aaguid: [UInt8]
    public var userVerified: Bool
    public var backupEligible: Bool
    public var backedUp: Bool
    /// Synced passkeys keep 0; a security key counts up.
    public var countsSignatures: Bool
    private let lock = NSLock()
    private var stored: [Credential] = []

    public init(
        origin: String, aaguid: [UInt8] = [UInt8](repeating: 0, count: 16), userVerified: Bool = true, backupEligible: Bool = true, backedUp: Bool = true,
        countsSignatures: Bool = false
    ) {
        self.origin = origin
        self.aaguid = aaguid
        self.userVerified = userVerified
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.countsSignatures = countsSignatures
    }

    public var credentials: [Credential] { lock.withLock { stored } }

    /// `navigator.credentials.create()`.
    public func register(_ options: PasskeyCreationOptions) throws -> RegistrationResponseJSON {
        let excluded = Set(options.excludeCredentials.compactMap { Base64URL.decode($0.id) })
        guard !credentials.contains(where: { $0.rpID == options.rp.id && excluded.contains($0.id) }) else { throw Failure.excluded }
        let key = P256.Signing.PrivateKey()
        let credential = Credential(
            id: (0..<32).map { _ in UInt8.random(in: 0...255) }, rpID: options.rp.id, userHandle: Base64URL.decode(options.user.id) ?? [],
            key: key, signCount: countsSignatures ? 1 : 0)
        lock.withLock { stored.append(credential) }
        let point = Array(key.publicKey.x963Representation)
        let coseKey = CBOREncoder.coseKey(point)
        let authData =
            Array(SHA256.hash(data: Array(options.rp.id.utf8))) + [flags(attested: true)] + counter(credential.signCount) + aaguid
            + [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xFF)] + credential.id + coseKey
        let object = CBOREncoder.map([(.text("fmt"), .text("none")), (.text("attStmt"), .raw(CBOREncoder.map([]))), (.text("authData"), .bytes(authData))])
        let id = Base64URL.encode(credential.id)
        return RegistrationResponseJSON(
            id: id, rawId: id,
            response: .init(
                clientDataJSON: Base64URL.encode(clientData("webauthn.create", options.challenge)), attestationObject: Base64URL.encode(object),
                transports: ["internal", "hybrid"]), authenticatorAttachment: "platform")
    }

    /// `navigator.credentials.get()`: the credential for the RP ID (the newest, or `credentialID`).
    public func authenticate(_ options: PasskeyRequestOptions, credentialID: [UInt8]? = nil) throws -> AuthenticationResponseJSON {
        let credential: Credential = try lock.withLock {
            guard let index = stored.lastIndex(where: { $0.rpID == options.rpId && (credentialID == nil || $0.id == credentialID) }) else {
                throw Failure.noCredential
            }
            if countsSignatures { stored[index].signCount += 1 }
            return stored[index]
        }
        let authData = Array(SHA256.hash(data: Array(options.rpId.utf8))) + [flags(attested: false)] + counter(credential.signCount)
        let clientDataBytes = clientData("webauthn.get", options.challenge)
        let signature = try credential.key.signature(for: authData + Array(SHA256.hash(data: clientDataBytes)))
        let id = Base64URL.encode(credential.id)
        return AuthenticationResponseJSON(
            id: id, rawId: id,
            response: .init(
                clientDataJSON: Base64URL.encode(clientDataBytes), authenticatorData: Base64URL.encode(authData),
                signature: Base64URL.encode(Array(signature.derRepresentation)), userHandle: Base64URL.encode(credential.userHandle)),
            authenticatorAttachment: "platform")
    }

    /// Sets a credential's counter, as a cloned copy of it would have it.
    public func setSignCount(_ count: UInt32, of id: [UInt8]) {
        lock.withLock {
            if let index = stored.firstIndex(where: { $0.id == id }) { stored[index].signCount = count }
        }
    }

    func flags(attested: Bool) -> UInt8 {
        var flags: UInt8 = 0x01
        if userVerified { flags |= 0x04 }
        if backupEligible { flags |= 0x08 }
        if backupEligible && backedUp { flags |= 0x10 }
        if attested { flags |= 0x40 }
        return flags
    }

    func counter(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    func clientData(_ type: String, _ challenge: String) -> [UInt8] {
        let json = #"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#
        return Array(json.utf8)
    }
}

/// Just enough CBOR encoding (RFC 8949, definite lengths, shortest heads) for the authenticator above.
public enum CBOREncoder {
    public indirect enum Item {
        case int(Int)
        case bytes([UInt8])
        case text(String)
        /// Already encoded.
        case raw([UInt8])
    }

    /// A P-256 key as COSE writes it in authenticator data (RFC 9053 §7.1.1: EC2, ES256), from its X9.63 point.
    public static func coseKey(_ point: [UInt8]) -> [UInt8] {
        map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(Array(point[1...32]))), (.int(-3), .bytes(Array(point[33...64])))])
    }

    public static func map(_ entries: [(Item, Item)]) -> [UInt8] {
        head(5, UInt64(entries.count)) + entries.flatMap { encode($0.0) + encode($0.1) }
    }

    public static func encode(_ item: Item) -> [UInt8] {
        switch item {
        case .int(let value): value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value))
        case .bytes(let bytes): head(2, UInt64(bytes.count)) + bytes
        case .text(let text): head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .raw(let bytes): bytes
        }
    }

    /// A decoded item encoded again (definite lengths, shortest heads), for tests that change a real
    /// object and send it back: the kinds an attestation holds; others encode to nothing.
    public static func reencode(_ item: CBOR) -> [UInt8] {
        switch item {
        case .unsigned(let n): head(0, n)
        case .negative(let n): head(1, n)
        case .bytes(let b): head(2, UInt64(b.count)) + b
        case .text(let t): head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let a): head(4, UInt64(a.count)) + a.flatMap(reencode)
        case .map(let m): head(5, UInt64(m.count)) + m.flatMap { reencode($0.key) + reencode($0.value) }
        default: []
        }
    }

    /// A head (RFC 8949 §3.1): the major type and its argument, in the shortest form.
    public static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        let type = major << 5
        switch value {
        case 0..<24: return [type | UInt8(value)]
        case 24..<256: return [type | 24, UInt8(value)]
        case 256..<65536: return [type | 25, UInt8(value >> 8), UInt8(value & 0xFF)]
        default: return [type | 26] + (0..<4).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xFF) }
        }
    }
}
