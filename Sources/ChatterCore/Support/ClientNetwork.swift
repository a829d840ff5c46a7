/// The unit per-client limits count by. An IPv4 address is one client; an IPv6 client is usually given a
/// whole /64 (RFC 6177, and SLAAC needs one), so counting full IPv6 addresses let one client rotate through
/// 2^64 of them. IPv6 addresses count by their first `prefix` bits (64 by default; `--ipv6-limit-prefix`).
public enum ClientNetwork {
    public static let defaultPrefix = 64
    /// The wider network also counted for IPv6, and how much more it may do than one /64.
    public static let widePrefix = 48
    public static let widening = 10

    /// `ip`'s wider network (/48) when it is IPv6, else nil: an IPv4 address is counted once.
    public static func wideKey(_ ip: String) -> String? {
        guard let bytes = TrustedProxies.parse(ip), bytes.count == 16 else { return nil }
        return key(ip, ipv6Prefix: widePrefix)
    }

    /// `limit` for the `index`-th of `ClientInfo.limitKeys`.
    public static func limit(_ limit: Int, widenedFor index: Int) -> Int {
        index == 0 ? limit : limit * widening
    }

    /// `ip`'s network as a key: the IPv4 address itself, or the IPv6 prefix written as `address/prefix`.
    /// An address that does not parse is its own key.
    public static func key(_ ip: String, ipv6Prefix prefix: Int = defaultPrefix) -> String {
        guard var bytes = TrustedProxies.parse(ip) else { return ip }
        guard bytes.count == 16 else { return TrustedProxies.format(bytes) }
        let bits = max(0, min(128, prefix))
        for index in 0..<16 {
            let kept = max(0, min(8, bits - index * 8))
            bytes[index] &= kept == 8 ? 0xFF : ~(0xFF >> UInt8(kept))
        }
        return TrustedProxies.format(bytes) + "/\(bits)"
    }
}
