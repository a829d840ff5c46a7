import ChatterCore

/// The attestation object (WebAuthn §6.5): `{ fmt, attStmt, authData }` in CBOR, nothing after it.
package struct AttestationObject: Sendable {
    package var format: AttestationFormat
    package var statement: CBOR
    package var authData: AuthenticatorData

    /// Attestation objects are a few KiB (a TPM chain is the largest); more is not one.
    package static let maximumBytes = 64 * 1024

    package enum Failure: Error, CustomStringConvertible {
        case tooLarge(Int)
        case missing(String)
        case unknownFormat(String)

        package var description: String {
            switch self {
            case .tooLarge(let count): "\(count) bytes (at most \(AttestationObject.maximumBytes))"
            case .missing(let field): "no \(field)"
            case .unknownFormat(let name): "the attestation format \(name.debugDescription) is not one WebAuthn defines"
            }
        }
    }

    package init(_ bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumBytes else { throw Failure.tooLarge(bytes.count) }
        let map = try CBORDecoder.decodeWhole(bytes)
        guard let name = map["fmt"]?.text else { throw Failure.missing("fmt text") }
        guard let format = AttestationFormat(rawValue: name) else { throw Failure.unknownFormat(name) }
        guard let statement = map["attStmt"], statement.entries != nil else { throw Failure.missing("attStmt map") }
        guard let authData = map["authData"]?.bytes else { throw Failure.missing("authData bytes") }
        self.format = format
        self.statement = statement
        self.authData = try AuthenticatorData(authData)
    }
}
