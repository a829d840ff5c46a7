import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import Logging

/// How chatterd writes its log: lines for a person (`text`), or one JSON object per line for a log
/// collector (`json`).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// A log handler that writes each event as one JSON object on one line: `time`, `level`, `label`,
/// `message`, `source` and the metadata's keys (a request's `hb.request.id` among them). chatterd's rule
/// that no secret reaches a log holds whatever the format: secrets are never put in messages or metadata.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let write: @Sendable (String) -> Void

    /// A handler for `label` writing lines through `write` (standard error by default).
    public init(label: String, logLevel: Logger.Level = .info, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.logLevel = logLevel
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata.merging(metadataProvider?.get() ?? [:]) { _, provided in provided }
        fields.merge(event.metadata ?? [:]) { _, given in given }
        var object: [String: JSONValue] = fields.mapValues(JSONValue.init)
        object["time"] = .string(Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)))
        object["level"] = .string(event.level.rawValue)
        object["label"] = .string(label)
        object["message"] = .string(event.message.description)
        object["source"] = .string(event.source)
        if let error = event.error { object["error"] = .string(String(describing: error)) }
        guard let data = try? Self.encoder.encode(object) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public static let standardError: @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
}

/// A metadata value as JSON: strings stay strings, lists and dictionaries nest.
enum JSONValue: Encodable, Sendable {
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(_ value: Logger.Metadata.Value) {
        switch value {
        case .string(let text): self = .string(text)
        case .stringConvertible(let value): self = .string(value.description)
        case .array(let values): self = .array(values.map(JSONValue.init))
        case .dictionary(let values): self = .object(values.mapValues(JSONValue.init))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }
}
