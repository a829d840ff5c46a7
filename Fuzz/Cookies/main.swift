// Fuzz target `cookies`: arbitrary bytes as the Cookie header chatterd reads the web-view session from
// (`request.cookie(_:)`, `CookieHeader`, via `SessionAuthenticator.credentials`), and as the web-session redeem link's query, whose
// `next` parameter `WebSessions.sameSitePath` must keep on this site.
//
// Input: Cookie header values separated by LF (each a Cookie field of its own, as repeated headers or
// HTTP/2 cookie crumbs arrive); the same bytes are also the query string and the `next` candidate.

import Foundation
import FuzzSupport
import HTTPTypes
import Hummingbird

@testable import ChatterServer

let site = URL(string: "https://chatter.example/")!

/// A path `sameSitePath` let through must stay on this site, however a browser resolves it.
func checkSameSite(_ candidate: String) {
    guard let path = WebSessions.sameSitePath(candidate) else { return }
    invariant(path.hasPrefix("/") && !path.hasPrefix("//"), "sameSitePath accepted \(path.debugDescription)")
    if let resolved = URL(string: path, relativeTo: site)?.absoluteURL {
        invariant(
            resolved.host == "chatter.example" && resolved.scheme == "https",
            "sameSitePath accepted \(path.debugDescription), which resolves to \(resolved.absoluteString)")
    }
}

/// Whether one of the request's Cookie fields holds `pair`'s bytes: compared as bytes, since a combining mark
/// after `;` joins it into one `Character` that a `String` search would not split.
func holds(_ request: Request, _ pair: String) -> Bool {
    request.headers[values: .cookie].contains { Array($0.utf8).firstRange(of: Array(pair.utf8)) != nil }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)

    var fields = HTTPFields()
    for value in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        // As HTTP hands values over: bytes a field value cannot hold become spaces.
        fields.append(HTTPField(name: .cookie, value: value))
    }
    let request = Request(
        head: HTTPRequest(method: .get, scheme: "https", authority: "chatter.example", path: "/v1/auth/web-session/csrf", headerFields: fields),
        body: RequestBody(buffer: ByteBuffer()))

    let cookie = request.cookie(SessionAuthenticator.cookieName)
    if let cookie {
        invariant(!cookie.isEmpty, "an empty session cookie was read as a cookie")
        let pair = SessionAuthenticator.cookieName + "=" + cookie
        invariant(
            holds(request, pair),
            "cookie(\(SessionAuthenticator.cookieName)) returned \(cookie.debugDescription), which no field holds after its name")
    }
    // With no Authorization header, the credentials are the session cookie's value, when it has one.
    if let (token, viaCookie) = SessionAuthenticator.credentials(in: request) {
        invariant(viaCookie && token == cookie, "credentials \(token.debugDescription) do not match the cookie \(String(describing: cookie))")
        _ = SessionAuthenticator.csrfToken(forCookie: token)
    } else {
        invariant(cookie == nil, "the session cookie \(String(describing: cookie)) was not read as credentials")
    }
    // Any other name the input mentions, through chatterd's reader and Hummingbird's.
    if let equals = input.firstIndex(of: UInt8(ascii: "=")) {
        let name = String(decoding: input[..<equals], as: UTF8.self)
        for name in [name, name.trimmingCharacters(in: .whitespaces)] {
            if let value = CookieHeader.value(named: name, in: request.headers) {
                invariant(
                    holds(request, name + "=" + value),
                    "value(named: \(name.debugDescription)) returned \(value.debugDescription), which no field holds after that name")
            }
            _ = request.cookies[name]?.value
        }
    }

    let text = String(decoding: input, as: UTF8.self)
    checkSameSite(text)
    // The redeem link as the router hands it over: `request.uri` parsed from the request's path.
    let redeem = Request(
        head: HTTPRequest(method: .get, scheme: "https", authority: "chatter.example", path: "/v1/auth/web-session/redeem?" + text),
        body: RequestBody(buffer: ByteBuffer()))
    _ = redeem.uri.queryParameters.get("code")
    if let next = redeem.uri.queryParameters.get("next") {
        checkSameSite(String(next))
    }
    return 0
}

runLibFuzzer(fuzz)
