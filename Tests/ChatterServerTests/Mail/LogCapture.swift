import Logging
import Synchronization

/// Collects every log line a transport writes, so tests can check what it logs and what it never does.
final class LogCapture: Sendable {
    private let storage = Mutex<[String]>([])

    var lines: [String] { storage.withLock { $0 } }
    var text: String { lines.joined(separator: "\n") }

    func logger() -> Logger {
        var logger = Logger(label: "mail-test") { _ in CapturingLogHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) {
        storage.withLock { $0.append(line) }
    }
}

private struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        capture.append(([event.level.rawValue, event.message.description] + fields).joined(separator: " "))
    }
}
