import ChatterWire
import Hummingbird

/// Errors as pages for browsers (a request that accepts HTML): the message written for people, the
/// status, and the error's own headers (`Retry-After`); never a stack or a token. API clients keep their
/// JSON errors, which `JSONErrorMiddleware` (inside this one) has already made of every error.
struct ErrorPageMiddleware: RouterMiddleware {
    typealias Context = ChatterRequestContext
    let pages: WebPages

    struct Page: PageContent {
        let frame: PageFrame
        let heading: String
        let message: String
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            guard request.headers[.accept]?.contains("text/html") == true else { throw error }
            let heading = error.status == .notFound ? "Page not found" : error.status.code >= 500 ? "Something went wrong" : error.status.reasonPhrase
            var response = pages.render(
                "error", Page(frame: pages.frame(heading, nil), heading: heading, message: error.body.message), status: error.status, visitor: nil)
            for field in error.headers where field.name != .wwwAuthenticate { response.headers.append(field) }
            return response
        }
    }
}
