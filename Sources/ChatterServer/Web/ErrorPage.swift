import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Hummingbird

/// Errors as pages for browsers (`ErrorMiddleware`): the message written for people, the status, and the
/// error's own headers (`Retry-After`); never a stack or a token.
extension WebPages {
    struct ErrorPage: PageContent {
        let frame: PageFrame
        let heading: String
        let message: String
    }

    func errorPage(_ error: APIError) -> Response {
        let heading = error.status == .notFound ? "Page not found" : error.status.code >= 500 ? "Something went wrong" : error.status.reasonPhrase
        var response = render("error", ErrorPage(frame: frame(heading, nil), heading: heading, message: error.body.message), status: error.status, visitor: nil)
        for field in error.headers where field.name != .wwwAuthenticate { response.headers.append(field) }
        return response
    }
}

// What the templates read (`TemplateFields`): each type's stored properties, by name.

extension WebPages.ErrorPage: TemplateFields {
    func child(named key: String) -> Any? {
        switch key {
        case "frame": frame
        case "heading": heading
        case "message": message
        default: nil
        }
    }
}
