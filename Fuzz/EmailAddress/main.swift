// Fuzz target `email-address`: arbitrary bytes as an email address through `EmailAddress.normalize`, which
// every route that takes an address calls before it looks the address up or stores it.

import FuzzSupport

@testable import ChatterCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let normalized = EmailAddress.normalize(raw) else { return 0 }
    // A normalized address is a fixed point: stored addresses are compared with newly normalized ones, so
    // normalizing twice must not change (or reject) it.
    let again = EmailAddress.normalize(normalized)
    invariant(
        again == normalized,
        "normalize is not idempotent: \(raw.debugDescription) -> \(normalized.debugDescription) -> \(again.debugDescription)")
    return 0
}

runLibFuzzer(fuzz)
