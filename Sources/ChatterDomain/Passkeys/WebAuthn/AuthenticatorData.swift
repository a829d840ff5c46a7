import ChatterCore

/// Authenticator data (WebAuthn §6.1): the RP ID hash, the flags, the signature counter and, at
/// registration, the attested credential (AAGUID, credential ID, COSE public key), then extensions.
/// Parsed strictly: a flag promises exactly the data that follows it, and nothing may come after.
public struct AuthenticatorData: Sendable {
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    public struct AttestedCredential: Sendable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        public var publicKey: COSEKey
    }

    /// WebAuthn §5.8.3: a credential ID is at most 1023 bytes; a client sending more is not conforming.
    public static let maximumCredentialIDBytes = 1023

    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?
    public let extensions: CBOR?

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case tooShort(Int)
        case credentialIDTooLong(Int)
        case badPublicKey(String)
        /// A well-formed key of an algorithm chatterd does not accept: reported as its own check, not as malformed.
        case unsupportedAlgorithm(COSEKeyError)
        case badExtensions(String)
        case trailingBytes(Int)

        public var description: String {
            switch self {
            case .tooShort(let count): "authenticator data of \(count) bytes is shorter than its flags promise"
            case .credentialIDTooLong(let count): "a credential ID of \(count) bytes (at most \(AuthenticatorData.maximumCredentialIDBytes))"
            case .badPublicKey(let why): "the credential public key: \(why)"
            case .unsupportedAlgorithm(let error): "the credential public key: \(error)"
            case .badExtensions(let why): "the extensions: \(why)"
            case .trailingBytes(let count): "\(count) bytes after the authenticator data's last field"
            }
        }
    }

    public init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 37 else { throw .tooShort(bytes.count) }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw .tooShort(bytes.count) }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length <= Self.maximumCredentialIDBytes else { throw .credentialIDTooLong(length) }
            guard bytes.count >= offset + length else { throw .tooShort(bytes.count) }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            let rest = bytes[offset...]
            let key: COSEKey
            do {
                let (item, consumed) = try CBORDecoder.decodeFirst(rest)
                key = try COSEKey(item, encoded: Array(rest.prefix(consumed)))
                offset += consumed
            } catch let error as CBORError {
                throw .badPublicKey(error.description)
            } catch let error as COSEKeyError {
                if case .unsupportedAlgorithm = error { throw .unsupportedAlgorithm(error) }
                throw .badPublicKey(error.description)
            } catch {
                throw .badPublicKey("\(error)")
            }
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: key)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            do {
                let (item, consumed) = try CBORDecoder.decodeFirst(bytes[offset...])
                guard item.entries != nil else { throw Failure.badExtensions("not a CBOR map") }
                extensions = item
                offset += consumed
            } catch let error as CBORError {
                throw .badExtensions(error.description)
            } catch {
                throw error as? Failure ?? .badExtensions("\(error)")
            }
        } else {
            extensions = nil
        }
        guard offset == bytes.count else { throw .trailingBytes(bytes.count - offset) }
    }
}
