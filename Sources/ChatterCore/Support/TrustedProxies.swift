import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxies whose word about the client's address chatterd takes. Per-IP limits need the real client:
/// behind a proxy every socket peer is the proxy, so all clients would share one bucket. But a forwarding
/// header is only as good as whoever wrote it, so it is read only when the peer is one of these, and
/// only the entries trusted hops appended: from the right, past every trusted proxy, the first address
/// that is not one is the client. Anything a client wrote further left is never looked at.
public struct TrustedProxies: Sendable, Equatable {
    package struct Range: Sendable, Equatable {
        package let network: [UInt8]
        package let prefixLength: Int

        package func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var bits = prefixLength
            for (a, b) in zip(address, network) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if a & mask != b & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    package let ranges: [Range]

    /// Trusts no one: the socket peer is the client.
    public static let none = TrustedProxies(ranges: [])

    package init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// `cidrs` as `10.0.0.0/8`, `fd00::/8`, or single addresses (`127.0.0.1`, `::1`).
    public init(_ cidrs: [String]) throws {
        ranges = try cidrs.map { text in
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let address = Self.parse(String(parts[0])) else {
                throw ConfigurationError("trusted proxy \"\(text)\" is not an IP address or CIDR range")
            }
            let maximum = address.count * 8
            guard let length = parts.count == 2 ? Int(parts[1]) : maximum, (0...maximum).contains(length) else {
                throw ConfigurationError("trusted proxy \"\(text)\" has a prefix length outside 0–\(maximum)")
            }
            return Range(network: address, prefixLength: length)
        }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    package func trusts(_ address: [UInt8]) -> Bool { ranges.contains { $0.contains(address) } }

    /// The client's address for a request from `peer`. `forwardedFor` and `forwarded` are every value of
    /// the `X-Forwarded-For` and `Forwarded` headers in order; the first is read when present, so a
    /// client cannot add a `Forwarded` header that a proxy writing `X-Forwarded-For` passes along.
    public func clientAddress(peer: String?, forwardedFor: [String], forwarded: [String]) -> String? {
        guard let peer, let peerBytes = Self.parse(peer), trusts(peerBytes) else { return peer }
        let hops = forwardedFor.isEmpty ? Self.forwardedFor(fromForwarded: forwarded) : forwardedFor.flatMap { $0.split(separator: ",") }.map(String.init)
        var nearest = peer
        for hop in hops.reversed() {
            // An entry a trusted hop wrote that is not an address ("unknown", an obfuscated name): the
            // client is unknown, and the hop that wrote it is the best address there is.
            guard let bytes = Self.parse(hop) else { return nearest }
            let canonical = Self.format(bytes)
            if !trusts(bytes) { return canonical }
            nearest = canonical
        }
        return nearest
    }

    /// The `for=` parameters of RFC 7239 `Forwarded` values, in order.
    package static func forwardedFor(fromForwarded values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { element in
            let pairs = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let value = pairs.first { $0.lowercased().hasPrefix("for=") }.map { String($0.dropFirst(4)) } ?? ""
            return value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
        }
    }

    /// The address in `text` as 4 or 16 bytes: IPv4, IPv6 (bracketed, with a port after the bracket, or
    /// with a zone), or IPv4 with a port. An IPv4-mapped IPv6 address is its IPv4 address.
    package static func parse(_ text: String) -> [UInt8]? {
        var host = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !host.isEmpty, host.utf8.count <= 64 else { return nil }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if host.filter({ $0 == ":" }).count == 1 {
            host = host.prefix { $0 != ":" }  // 192.0.2.1:4711
        }
        if let zone = host.firstIndex(of: "%") { host = host[..<zone] }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(host), &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, String(host), &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// One spelling per address, so limits keyed by it cannot be dodged by writing it differently.
    package static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }
}
