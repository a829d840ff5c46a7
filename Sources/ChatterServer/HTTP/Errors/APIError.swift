import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird

/// An error answered to the client as a JSON `ErrorBody` with the given status.
public struct APIError: Error, HTTPResponseError {
    public var status: HTTPResponse.Status
    public private(set) var body: ErrorBody
    public var headers: HTTPFields = [:]
    /// `body` already encoded, for errors answered often enough (bad chatterIDs) to skip encoding each time.
    private var encoded: ByteBuffer?

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, check: String? = nil, audience: [String]? = nil) {
        self.status = status
        self.body = ErrorBody(error: code.rawValue, message: message, check: check, audience: audience)
    }

    /// For an error Hummingbird raised, whose code is its status's reason phrase (`method_not_allowed`).
    init(_ status: HTTPResponse.Status, derivedCode: String, _ message: String) {
        self.status = status
        self.body = ErrorBody(error: derivedCode, message: message)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = encoded.map { JSONResponse.make(bytes: $0, status: status) } ?? JSONResponse.make(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    func preEncoded() -> APIError {
        var copy = self
        copy.encoded = (try? JSONResponse.encoder.encode(body)).map { ByteBuffer(bytes: $0) }
        return copy
    }

    func with(_ name: HTTPField.Name, _ value: String) -> APIError {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    static func unprocessable(_ message: String) -> APIError { APIError(.unprocessableContent, .invalidBody, message) }
    static let notFound = APIError(.notFound, .notFound, "Not found.")
    /// Whatever the sign-in method: the session insert refused it (see `SessionRepository.createSession`).
    static let accountDisabled = APIError(
        .forbidden, .accountDisabled, "This account has been disabled by the server's operator; ask them to enable it again.")
}

/// A domain error's answer. Each domain error type has one mapping (`<Type>+HTTP.swift` beside this
/// file): `JSONErrorMiddleware` answers the API with it, and pages show its message.
protocol APIErrorConvertible: Error {
    var apiError: APIError { get }
}

extension APIError: APIErrorConvertible {
    var apiError: APIError { self }
}

/// Makes every error a JSON body: the router's 404s, oversized bodies, and anything unexpected (500,
/// logged with the request id but never with the request's body or headers, which may carry secrets).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as any APIErrorConvertible {
            throw error.apiError
        } catch StoreError.accountDisabled {
            throw APIError.accountDisabled
        } catch let error as any HTTPResponseError {
            let status = error.status
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            if status == .contentTooLarge { throw APIError(status, .bodyTooLarge, "The request body is larger than \(Limits.bodyBytes) bytes.") }
            throw APIError(status, derivedCode: status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_"), message)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw APIError(.internalServerError, .internalError, "chatterd could not complete the request; the error is in its log.")
        }
    }
}
