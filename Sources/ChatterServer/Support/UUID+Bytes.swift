import Foundation

extension UUID {
    /// The 16 bytes, in order: what a refresh token carries to name its session.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        self.init(uuid: uuid)
    }
}
