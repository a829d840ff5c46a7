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

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, check: String? = nil, audience: [String]? = nil) {
        self.status = status
        self.body = ErrorBody(error: code, message: message, check: check, audience: audience)
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

    /// A 429 from the limit `kind` (counted in `chatterd_rate_limited_total`).
    static func tooMany(_ kind: String, retryAfter seconds: Int, _ message: String = "Too many attempts; try again later.") -> APIError {
        ChatterMetrics.rateLimited(kind)
        return APIError(.tooManyRequests, "rate_limited", message).with(.retryAfter, String(seconds))
    }

    static func unprocessable(_ message: String) -> APIError { APIError(.unprocessableContent, "invalid_body", message) }
    static func tooLong(_ message: String) -> APIError { APIError(.badRequest, "field_too_long", message) }
    static let unknownSession = APIError(.unauthorized, "invalid_session", "Unknown chatterID: sign in again with /adduser.").preEncoded()
    static let expiredSession = APIError(.unauthorized, "expired_session", "This chatterID has expired: sign in again with /adduser.").preEncoded()
    /// Whatever the sign-in method: the session insert refused it (see `SessionRepository.createSession`).
    static let accountDisabled = APIError(
        .forbidden, "account_disabled", "This account has been disabled by the server's operator; ask them to enable it again.")
}

/// Makes every error a JSON body: the router's 404s, oversized bodies, and anything unexpected (500,
/// logged with the request id but never with the request's body or headers, which may carry secrets).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch StoreError.accountDisabled {
            throw APIError.accountDisabled
        } catch let error as any HTTPResponseError {
            let status = error.status
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            let code = status == .contentTooLarge ? "body_too_large" : status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            let text = status == .contentTooLarge ? "The request body is larger than \(Limits.bodyBytes) bytes." : message
            throw APIError(status, code, text)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw APIError(.internalServerError, "internal", "chatterd could not complete the request; the error is in its log.")
        }
    }
}
