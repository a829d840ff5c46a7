import ChatterWire
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The client address behind proxies: forwarding headers count only from trusted peers, and only the
/// entries trusted hops wrote.
@Suite struct TrustedProxiesTests {
    let proxies: TrustedProxies

    init() throws {
        proxies = try TrustedProxies(["10.0.0.0/8", "192.0.2.7", "fd00::/8"])
    }

    @Test func aDirectClientsHeadersAreIgnored() {
        #expect(proxies.clientAddress(peer: "203.0.113.5", forwardedFor: ["1.2.3.4"], forwarded: ["for=1.2.3.4"]) == "203.0.113.5")
        #expect(TrustedProxies.none.clientAddress(peer: "127.0.0.1", forwardedFor: ["1.2.3.4"], forwarded: []) == "127.0.0.1")
    }

    @Test func theRightmostUntrustedEntryIsTheClient() {
        // The client wrote "6.6.6.6" itself; the first proxy appended the address it saw, the second its peer.
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, 198.51.100.20, 10.0.0.1"], forwarded: []) == "198.51.100.20")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6", "198.51.100.20,10.0.0.1"], forwarded: []) == "198.51.100.20")
        #expect(proxies.clientAddress(peer: "192.0.2.7", forwardedFor: ["198.51.100.21"], forwarded: []) == "198.51.100.21")
    }

    @Test func aChainOfTrustedProxiesEndsAtTheFarthestOne() {
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["10.0.0.9, 10.0.0.1"], forwarded: []) == "10.0.0.9")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: [], forwarded: []) == "10.0.0.2")
    }

    @Test func forwardedHeaderIsReadWhenThereIsNoXForwardedFor() {
        let forwarded = [#"for=6.6.6.6, for="[2001:db8::1]:4711";proto=https, for=10.0.0.1"#]
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: [], forwarded: forwarded) == "2001:db8::1")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.1"], forwarded: forwarded) == "198.51.100.1")
    }

    @Test func garbageFromAClientNeverBecomesTheAddress() {
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["unknown"], forwarded: []) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["<script>, 198.51.100.3"], forwarded: []) == "198.51.100.3")
    }

    @Test func addressesHaveOneSpelling() {
        #expect(proxies.clientAddress(peer: "::ffff:10.0.0.2", forwardedFor: ["2001:DB8:0:0::1"], forwarded: []) == "2001:db8::1")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.4:5555"], forwarded: []) == "198.51.100.4")
        #expect(proxies.clientAddress(peer: "fd12::1", forwardedFor: ["::ffff:198.51.100.5"], forwarded: []) == "198.51.100.5")
    }

    @Test(arguments: ["10.0.0.0/33", "not-an-ip", "::1/129", "1.2.3.4/x", ""])
    func invalidRangesAreRefused(range: String) {
        #expect(throws: ConfigurationError.self) { try TrustedProxies([range]) }
    }

    /// Behind the documented proxy setup, one client's requests no longer use up everyone's per-IP quota.
    @Test func perIPLimitsUseTheForwardedAddressOnlyFromATrustedPeer() async throws {
        let xff = ConcurrentLimitTests.forwardedFor
        try await Harness.run(configure: { $0.trustedProxies = ["127.0.0.1", "::1"] }) { h async throws in
            for index in 0..<20 {
                let r = try await h.post(NativePath.emailCode, json: #"{"email":"u\#(index)@example.com"}"#, headers: [xff: "198.51.100.1"])
                #expect(r.status == .accepted)
            }
            let same = try await h.post(NativePath.emailCode, json: #"{"email":"u99@example.com"}"#, headers: [xff: "198.51.100.1"])
            #expect(same.status == .tooManyRequests)
            let other = try await h.post(NativePath.emailCode, json: #"{"email":"u98@example.com"}"#, headers: [xff: "198.51.100.2"])
            #expect(other.status == .accepted, "another client behind the same proxy has its own quota")
        }
        try await Harness.run { h async throws in
            // Not a trusted peer: spoofed headers change nothing, the socket's address is the client.
            for index in 0..<20 {
                _ = try await h.post(NativePath.emailCode, json: #"{"email":"u\#(index)@example.com"}"#, headers: [xff: "198.51.100.\(index)"])
            }
            let spoofed = try await h.post(NativePath.emailCode, json: #"{"email":"u99@example.com"}"#, headers: [xff: "198.51.100.250"])
            #expect(spoofed.status == .tooManyRequests)
        }
    }
}
