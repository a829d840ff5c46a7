import Foundation
import NIOCore

/// Where a session signed in from, as much as its owner needs to recognise it and no more: the network
/// (an IPv4 /24, an IPv6 /48), never the whole address, which the page would otherwise show to anyone
/// looking over the owner's shoulder. No location database is shipped; the network is what chatterd knows.
enum ApproximateAddress {
    static func text(_ ip: String) -> String? {
        // fail-closed: an address that does not parse is not shown
        guard let address = try? SocketAddress(ipAddress: ip, port: 0) else { return nil }
        switch address {
        case .v4:
            let octets = ip.split(separator: ".")
            guard octets.count == 4 else { return nil }
            if octets[0] == "127" { return "this computer" }
            return "network \(octets[0]).\(octets[1]).\(octets[2]).x"
        case .v6:
            if ip == "::1" { return "this computer" }
            var bytes = [UInt8](repeating: 0, count: 16)
            guard inet_pton(AF_INET6, ip, &bytes) == 1 else { return nil }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return bytes[12] == 127 ? "this computer" : "network \(bytes[12]).\(bytes[13]).\(bytes[14]).x"
            }
            let groups = stride(from: 0, to: 6, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            return "network \(groups.joined(separator: ":"))::/48"
        case .unixDomainSocket:
            return nil
        }
    }
}
