import ChatterCore
import Foundation

/// Server nonces (RFC 9449 §8) that every instance on one database makes and accepts alike, with nothing
/// stored: a nonce is a time step and its tag under the database's token key. One is current for `step`
/// seconds and accepted for one step more, so a client that fetched it just before a step ends keeps it.
public struct DPoPNonces: Sendable {
    let key: SessionTokenKey
    public var step: Double = 300

    public init(key: SessionTokenKey, step: Double = 300) {
        self.key = key
        self.step = step
    }

    public func current(at now: Date) -> String {
        nonce(forStep: Self.index(now, step))
    }

    public func isCurrent(_ nonce: String, at now: Date) -> Bool {
        let index = Self.index(now, step)
        return constantTimeEqual(Array(nonce.utf8), Array(self.nonce(forStep: index).utf8))
            || constantTimeEqual(Array(nonce.utf8), Array(self.nonce(forStep: index - 1).utf8))
    }

    private func nonce(forStep index: Int64) -> String {
        let bytes = withUnsafeBytes(of: index.bigEndian, Array.init)
        return Base64URL.encode(bytes + key.tag(Array("chatterd dpop nonce\n".utf8) + bytes))
    }

    private static func index(_ now: Date, _ step: Double) -> Int64 {
        Int64((now.timeIntervalSince1970 / step).rounded(.down))
    }
}
