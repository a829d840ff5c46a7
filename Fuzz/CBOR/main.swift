// Fuzz target `cbor`: arbitrary bytes through the strict CBOR decoder, and through what reads CBOR from an
// authenticator: a COSE key, authenticator data (which holds a key and extensions) and an attestation
// object.

import FuzzSupport

@testable import ChatterCore
@testable import ChatterDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let first = try? CBORDecoder.decodeFirst(input)
    let whole = try? CBORDecoder.decodeWhole(input)
    if let first {
        invariant(first.consumed >= 1 && first.consumed <= input.count, "consumed \(first.consumed) of \(input.count) bytes")
        // The first item of the input is the first item of any longer input, and decodes alone.
        invariant(whole == (first.consumed == input.count ? first.item : nil), "decodeWhole disagrees with decodeFirst")
        invariant((try? CBORDecoder.decodeWhole(input.prefix(first.consumed))) == first.item, "the consumed prefix is not the item")
    } else {
        invariant(whole == nil, "decodeWhole accepted what decodeFirst refused")
    }
    if let key = try? COSEKey(encoded: input) {
        invariant(key.encoded == input, "a COSE key does not keep its bytes")
        invariant(!key.isValidSignature([], for: input), "an empty signature verified")
    }
    if let authData = try? AuthenticatorData(input) {
        invariant(authData.bytes == input && authData.rpIDHash.count == 32, "authenticator data lost bytes")
        invariant(
            (authData.attestedCredential != nil) == authData.flags.contains(.attestedCredentialData),
            "an attested credential without flag AT, or the reverse")
        invariant((authData.extensions != nil) == authData.flags.contains(.extensionData), "extensions without flag ED, or the reverse")
        if let credential = authData.attestedCredential {
            invariant(credential.credentialID.count <= AuthenticatorData.maximumCredentialIDBytes, "an overlong credential ID")
        }
    }
    _ = try? AttestationObject(input)
    return 0
}

runLibFuzzer(fuzz)
