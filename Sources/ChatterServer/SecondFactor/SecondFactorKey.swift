import Foundation

/// The key authenticator secrets are sealed under (`SecretBox`), in a file of its own beside the database,
/// never in it: `DATA_DIR/second-factor.key` by default, made on first start (32 random bytes, written as
/// hex, readable by chatterd's user alone). Every instance sharing a database must be given the same file.
public enum SecondFactorKey {
    public static func ensure(at path: String) throws -> [UInt8] {
        if FileManager.default.fileExists(atPath: path) {
            let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let key = hexBytes(text), key.count == SecretBox.keyBytes else {
                throw ConfigurationError("\(path) must hold \(SecretBox.keyBytes) bytes as \(SecretBox.keyBytes * 2) hex digits")
            }
            return key
        }
        let key = SecureRandom.bytes(SecretBox.keyBytes)
        let hex = key.map { String(format: "%02x", $0) }.joined() + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(hex.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write the second-factor key to \(path)")
        }
        return key
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
