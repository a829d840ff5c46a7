import ChatterCore
import ExtrasBase64
import Foundation
import HTTPTypes
import Hummingbird

/// What a refused form says on the page it redirects to (post/redirect/get), so Back never offers to send
/// the form again: one message, in a `__Host-` cookie that only this origin can set, read and cleared by the
/// next showing of the page. The message is the page's own words, shown as escaped text.
enum WebFlash {
    static let cookieName = "__Host-chatter-flash"
    static let maximumBytes = 600

    /// A 303 to `path` that shows `error` there once.
    static func redirect(to path: String, error: APIError) -> Response {
        var response = WebSessions.redirect(to: path)
        let text = String(error.body.message.utf8.prefix(maximumBytes)) ?? ""
        let value = Base64.encodeToString(bytes: Array(text.utf8), options: [.base64UrlAlphabet, .omitPaddingCharacter])
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.make(cookieName, value, maxAge: 120)))
        return response
    }

    /// The message a redirect left, if any; anything that does not decode, or is longer than a message, is none.
    static func message(_ request: Request) -> String? {
        request.cookie(cookieName).flatMap(message(cookie:))
    }

    static func message(cookie value: String) -> String? {
        guard !value.isEmpty, value.utf8.count <= maximumBytes * 4 / 3 + 4 else { return nil }
        // fail-closed: a cookie that does not decode is no message
        guard let bytes = try? Base64.decode(string: value, options: [.base64UrlAlphabet, .omitPaddingCharacter]) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `response` with the message cleared, when the request carried one.
    static func cleared(_ response: Response, for request: Request) -> Response {
        guard request.cookie(cookieName) != nil else { return response }
        var response = response
        response.headers.append(HTTPField(name: .setCookie, value: WebCookie.expired(cookieName)))
        return response
    }
}
