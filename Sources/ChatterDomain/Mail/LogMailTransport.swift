import ChatterCore
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The development transport: nothing leaves the machine. Each message is saved as an `.eml` file in
/// `outbox` (open it in any mail client) and its code is printed in the server log, so a developer can
/// sign in without a mail server.
public struct LogMailTransport: MailTransport {
    public let outbox: String
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// Creates `outbox` (mode 0700) if it does not exist. An existing directory is left as it is, since
    /// it may be shared, but a warning says so when others can read it.
    public init(outbox: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.outbox = outbox
        self.logger = logger
        self.now = now
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: outbox, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw MailError("mail outbox \(outbox) exists and is not a directory") }
            let mode = (try? FileManager.default.attributesOfItem(atPath: outbox)[.posixPermissions] as? Int) ?? 0
            if mode & 0o077 != 0 {
                logger.warning("mail outbox is readable by other users; the sign-in codes in it are too", metadata: ["outbox": "\(outbox)"])
            }
        } else {
            try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: true)
            // Set explicitly: the mode given to mkdir is narrowed by the umask but never widened back.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: outbox)
        }
    }

    public func send(_ message: MailMessage) async throws {
        let date = now()
        let text = try message.rfc5322(date: date)
        let path = (outbox as NSString).appendingPathComponent(Self.fileName(for: date))
        // A blocking write of a few hundred bytes: acceptable for a development-only transport.
        try Self.writePrivately(Array(text.utf8), to: path)
        let recipient = try message.recipient.redacted
        let metadata: Logger.Metadata = ["mail.subject": "\(message.subject)", "mail.file": "\(path)"]
        if let code = message.code {
            // The one deliberate exception to "logs never contain a code": this transport exists
            // only for development, where the log is the mailbox. Production uses SMTPMailTransport,
            // which never logs codes, bodies or credentials.
            logger.notice(">>> sign-in code for \(recipient): \(code) <<<", metadata: metadata)
        } else {
            logger.notice("mail for \(recipient) saved to the outbox", metadata: metadata)
        }
    }

    /// `20250102T030405.678Z-1a2b3c4d.eml`: names sort by the time they were written, and the random
    /// suffix keeps two messages in the same millisecond apart.
    package static func fileName(for date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return "\(formatter.string(from: date))-\(UUID().uuidString.prefix(8).lowercased()).eml"
    }

    /// open(2) with mode 0600 and O_EXCL: the file is never readable by others, not even for a moment,
    /// and an existing file (or a planted symlink) is never written through.
    package static func writePrivately(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw MailError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { throw MailError("cannot write \(path): \(String(cString: strerror(errno)))") }
            written += result
        }
    }
}
