import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long a connection may take over each step, and how many may be open at once. A client that opens
/// connections and then sends nothing, or a byte at a time (slowloris), holds a descriptor for as long as
/// the server lets it; these bound that, each with a default a real browser or app never reaches.
public struct ConnectionLimits: Sendable, Equatable {
    /// From accepting a connection to the end of its first request's head (TLS handshake included).
    public var headTimeout: Double = 10
    /// From a request's head to the end of its body.
    public var bodyTimeout: Double = 30
    /// From the end of an answer to the next request's head: how long a kept-alive connection may idle.
    public var idleTimeout: Double = 30
    /// From accepting a TLS connection to the end of its handshake.
    public var tlsHandshakeTimeout: Double = 10
    /// Connections open at once; past it, new ones wait in the kernel's queue until one closes. Nil: the
    /// descriptor limit less what the database, the mail and the keys need (`reservedDescriptors`).
    public var maximumConnections: Int?

    public static let reservedDescriptors = 64

    public init() {}

    /// The cap in force: the configured one, or what the descriptor limit leaves.
    public func connectionCap(descriptorLimit: Int = DescriptorLimit.current) -> Int {
        maximumConnections ?? max(16, descriptorLimit - Self.reservedDescriptors)
    }

    func validate() throws {
        for (name, value) in [("head", headTimeout), ("body", bodyTimeout), ("idle", idleTimeout), ("TLS handshake", tlsHandshakeTimeout)] {
            guard value > 0, value <= 3600 else { throw ConfigurationError("the \(name) timeout must be between 0 and 3600 seconds") }
        }
        if let maximumConnections, maximumConnections < 1 { throw ConfigurationError("--max-connections must be at least 1") }
    }
}

/// The process's limit on open descriptors (each connection is one).
public enum DescriptorLimit {
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return 1024 }
        return limit.rlim_cur == rlim_t.max ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one (many systems start processes at 1,024 of a hard 524,288),
    /// and answers what it was and what it is.
    @discardableResult
    public static func raise() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return (current, current) }
        let before = limit.rlim_cur
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Self.resource, &limit)
        }
        return (before == rlim_t.max ? Int(Int32.max) : Int(before), current)
    }

    #if os(Linux)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
