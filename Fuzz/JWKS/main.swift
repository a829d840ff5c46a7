// Fuzz target `jwks`: arbitrary bytes as a provider's JSON Web Key Set (`JWKSCache.keySet`, which every
// fetched key set goes through) and as the JWKS response's `Cache-Control` header
// (`HTTPJWKSSource.maxAge(fromCacheControl:)`, which decides how long those keys are trusted).

import Foundation
import FuzzSupport

@testable import ChatterCore
@testable import ChatterDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)

    let kids: Set<String>? = blocking {
        (try? await JWKSCache.keySet(from: input, algorithms: ["RS256"]))?.kids
    }
    if let kids {
        invariant(!kids.isEmpty, "keySet returned a key set with no keys")
    }

    // The header value as HTTP hands it over: a string, never containing CR or LF.
    let header = String(decoding: input, as: UTF8.self)
    if let maxAge = CacheControl.maxAge(header) {
        // The cache adds this to the fetch time to decide when the keys expire (clamped below by the
        // refetch interval). NaN or infinity would mean the keys never expire.
        invariant(maxAge.isFinite, "max-age \(maxAge) from Cache-Control \(header.debugDescription)")
    }
    return 0
}

runLibFuzzer(fuzz)
