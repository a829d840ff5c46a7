import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird
import Logging

/// Every error, answered one way, as Ory Kratos answers a flow's errors: the JSON `ErrorBody` API clients
/// read, or, for a browser (a request that accepts HTML), a page with the same status, message and headers
/// (`Retry-After`). Domain errors answer through their `+HTTP` mapping; the router's own (404, an oversized
/// body) by their status; anything unexpected is a 500, logged with the request id but never with the
/// request's body or headers, which may carry secrets.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The page a browser gets; nil answers JSON only (the metrics listener).
    var page: (@Sendable (APIError) -> Response)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = Self.answer(for: error, logger: context.logger)
            if let page, request.headers[.accept]?.contains("text/html") == true { return page(answer) }
            throw answer
        }
    }

    static func answer(for error: any Error, logger: Logger) -> APIError {
        switch error {
        case let error as any APIErrorConvertible:
            return error.apiError
        case StoreError.accountDisabled:
            return APIError.accountDisabled
        case let error as any HTTPResponseError:
            let status = error.status
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            switch status {
            case .contentTooLarge: return APIError(status, .bodyTooLarge, "The request body is larger than \(Limits.bodyBytes) bytes.")
            case .notFound: return APIError(status, .notFound, message)
            case .badRequest: return APIError(status, .badRequest, message)
            default:
                // Hummingbird raises only the three above; another status keeps its reason phrase as its code.
                return APIError(status, derivedCode: status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_"), message)
            }
        default:
            logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return APIError(.internalServerError, .internalError, "chatterd could not complete the request; the error is in its log.")
        }
    }
}
