import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird
import Logging

enum JSONResponse {
    static let logger = Logger(label: "chatterd")
    static let encodingFailed = ByteBuffer(
        string: #"{"error":"\#(ErrorCode.internalError.rawValue)","message":"chatterd could not write its answer; the error is in its log."}"#)

    static let encoder = WireJSON.encoder

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        // Wire types always encode, so a failure is chatterd's bug: said as one, never as a success.
        do {
            return make(bytes: ByteBuffer(bytes: try encoder.encode(value)), status: status)
        } catch {
            logger.error("encoding a response failed", metadata: ["type": "\(type(of: value))", "error": "\(error)"])
            return make(bytes: encodingFailed, status: .internalServerError)
        }
    }

    /// Every sign-in and refresh answers this: written directly (see `JSONWriter`), the same bytes.
    static func make(_ value: SessionResponse, status: HTTPResponse.Status = .ok) -> Response {
        make(bytes: value.json, status: status)
    }

    static func make(bytes: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        // Answers carry tokens, profiles and CSRF tokens: no cache, shared or private, may keep one.
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"], body: .init(byteBuffer: bytes))
    }
}

extension Request {
    /// Reads the body (up to the context's limit) and decodes it, turning every decoding failure into a 422
    /// that names the field, so a client learns what to fix.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: some RequestContext) async throws -> T {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        return try Self.decode(T.self, from: buffer)
    }

    /// Like `decodeJSON`, but an empty body means "no options given".
    func decodeOptionalJSON<T: Decodable>(_ type: T.Type, context: some RequestContext) async throws -> T? {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        return buffer.readableBytes == 0 ? nil : try Self.decode(T.self, from: buffer)
    }

    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: buffer)
        } catch let error as DecodingError {
            throw APIError.unprocessable(Self.describe(error))
        } catch {
            throw APIError.unprocessable("The body is not valid JSON.")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            return keys.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Missing field \"\(path(context, key))\"."
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return context.codingPath.isEmpty
                ? "The body must be a JSON object."
                : "Field \"\(path(context))\" must be a \(type == String.self ? "string" : "\(type)")."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON." : "Field \"\(path(context))\" is invalid."
        @unknown default:
            return "The body could not be decoded."
        }
    }
}
