import Foundation
import Logging
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// `--log-format json`: every event is one JSON object on one line, with its metadata.
@Suite struct JSONLogTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ text: String) { lines.withLock { $0.append(text) } }
    }

    @Test func eachEventIsOneJSONObjectOnOneLine() throws {
        let lines = Lines()
        var logger = Logger(label: "chatterd") { label in JSONLogHandler(label: label, logLevel: .info, write: lines.append) }
        logger[metadataKey: "hb.request.id"] = "42"
        logger.info("signed in \"ada\"\nsecond line", metadata: ["method": "google", "attempts": .stringConvertible(3), "ids": ["a", "b"]])
        logger.debug("below the level: not written")
        logger.warning("refresh token reused", metadata: ["hb.request.id": "43"])

        let written = lines.all
        #expect(written.count == 2)
        #expect(written.allSatisfy { $0.hasSuffix("\n") && $0.dropLast().contains("\n") == false }, "one line each")
        let first = try #require(JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(first["message"] as? String == "signed in \"ada\"\nsecond line")
        #expect(first["level"] as? String == "info" && first["label"] as? String == "chatterd")
        #expect(first["hb.request.id"] as? String == "42" && first["method"] as? String == "google" && first["attempts"] as? String == "3")
        #expect(first["ids"] as? [String] == ["a", "b"])
        let time = try #require(first["time"] as? String)
        #expect(try Date(time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)).timeIntervalSinceNow > -60)
        let second = try #require(JSONSerialization.jsonObject(with: Data(written[1].utf8)) as? [String: Any])
        #expect(second["hb.request.id"] as? String == "43", "an event's own metadata wins over the logger's")
    }

    @Test func theFormatIsASetting() throws {
        var config = ServerConfiguration()
        try config.apply(environment: ["CHATTERD_LOG_FORMAT": "json"], arguments: [])
        #expect(config.logFormat == .json)
        try config.apply(environment: [:], arguments: ["--log-format", "text"])
        #expect(config.logFormat == .text)
        #expect(throws: ConfigurationError.self) { try config.apply(environment: [:], arguments: ["--log-format", "xml"]) }
    }
}
