import ChatterCore

/// The authenticator data of an App Attest attestation or assertion: WebAuthn's layout (§6.1), read only as
/// far as Apple's checks need. After the credential's key, devices since 2026 append one CBOR map
/// (`apple_bundle_version_01`, …) without setting the extension flag: one map is taken there, nothing else.
struct AppAttestAuthenticatorData {
    let bytes: [UInt8]
    let rpIDHash: [UInt8]
    let counter: UInt32
    let aaguid: [UInt8]?
    let credentialID: [UInt8]?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(_ bytes: [UInt8], attested: Bool) throws {
        guard bytes.count >= 37 else { throw Failure(description: "authenticator data of \(bytes.count) bytes (at least 37)") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        let flags = bytes[32]
        counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if attested {
            guard flags & 0x40 != 0, bytes.count >= offset + 18 else { throw Failure(description: "no attested credential data") }
            aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length <= 1023, bytes.count >= offset + length else { throw Failure(description: "a credential ID of \(length) bytes") }
            credentialID = Array(bytes[offset..<offset + length])
            offset += length
            do {
                let (key, consumed) = try CBORDecoder.decodeFirst(bytes[offset...])
                guard key.entries != nil else { throw Failure(description: "the credential's key is not a CBOR map") }
                offset += consumed
            } catch let error as CBORError {
                throw Failure(description: "the credential's key: \(error)")
            }
        } else {
            aaguid = nil
            credentialID = nil
        }
        if offset < bytes.count {
            do {
                let (extra, consumed) = try CBORDecoder.decodeFirst(bytes[offset...])
                guard extra.entries != nil, offset + consumed == bytes.count else {
                    throw Failure(description: "\(bytes.count - offset) bytes after the authenticator data that are not one CBOR map")
                }
            } catch let error as CBORError {
                throw Failure(description: "bytes after the authenticator data: \(error)")
            }
        }
    }
}
