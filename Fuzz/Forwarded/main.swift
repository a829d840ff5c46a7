// Fuzz target `forwarded`: arbitrary bytes as the forwarding headers (`X-Forwarded-For`, `Forwarded`) and
// peer address that `TrustedProxies.clientAddress` turns into the client address every per-IP limit and
// the audit log key on, and as trusted-proxy configuration (`TrustedProxies.init`).
//
// Input: LF-separated lines. The first is the peer address; every other line is a header value, an
// `X-Forwarded-For` one when it starts with `x`, a `Forwarded` one when it starts with `f` (that letter
// dropped), and otherwise an extra trusted-proxy entry (comma-separated) added to a fixed list.

import ChatterCore
import FuzzSupport

/// Loopback, private IPv4, unique-local IPv6, a documentation range, and one single address.
let baseProxies = ["127.0.0.1", "::1", "10.0.0.0/8", "fd00::/8", "192.0.2.0/24", "2001:db8::7"]
let proxies = try! TrustedProxies(baseProxies)
/// Every address is a proxy: the nearest header entry that is an address is the answer, spelled canonically.
let trustEveryone = try! TrustedProxies(["0.0.0.0/0", "::/0"])
/// No proxy trusted: the peer is the client.
let trustNoOne = try! TrustedProxies([])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lines = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false)
    let peer = lines.first.map(String.init)
    var forwardedFor: [String] = []
    var forwarded: [String] = []
    var extraProxies: [String] = []
    for line in lines.dropFirst() {
        switch line.first {
        case "x": forwardedFor.append(String(line.dropFirst()))
        case "f": forwarded.append(String(line.dropFirst()))
        default: extraProxies += line.split(separator: ",").map(String.init)
        }
    }

    var trusted = [proxies]
    if !extraProxies.isEmpty, let configured = try? TrustedProxies(baseProxies + extraProxies) {
        trusted.append(configured)
    }
    for config in trusted {
        let client = config.clientAddress(peer: peer, forwardedFor: forwardedFor, forwarded: forwarded)
        invariant((client == nil) == (peer == nil), "peer \(String(describing: peer)) gave client \(String(describing: client))")
        if let client, client != peer {
            // An address taken from a header is written one way, so that a limit keyed by it cannot be
            // dodged by respelling it: read again as a header value, it comes back unchanged.
            let again = trustEveryone.clientAddress(peer: "127.0.0.1", forwardedFor: [client], forwarded: [])
            invariant(again == client, "client address \(client.debugDescription) from the headers reads back as \(String(describing: again))")
        }
        // Only a trusted peer's headers count: no proxy trusted, no header read.
        invariant(
            trustNoOne.clientAddress(peer: peer, forwardedFor: forwardedFor, forwarded: forwarded) == peer,
            "with no trusted proxies the headers changed the client from \(String(describing: peer))")
    }
    return 0
}

runLibFuzzer(fuzz)
