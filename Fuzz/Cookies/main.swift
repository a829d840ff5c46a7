// Fuzz target `cookies`: arbitrary bytes as the Cookie header chatterd reads the web-view session from
// (`request.cookies[…]` via `SessionAuthenticator.credentials`), and as the web-session redeem link's query, whose
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

    let cookie = request.cookies[SessionAuthenticator.cookieName]
    if let cookie {
        invariant(
            cookie.name == SessionAuthenticator.cookieName,
            "cookies[\(SessionAuthenticator.cookieName)] returned a cookie named \(cookie.name.debugDescription)")
    }
    // With no Authorization header, the credentials are the session cookie's value, when it has one.
    if let (token, viaCookie) = SessionAuthenticator.credentials(in: request) {
        invariant(
            viaCookie && token == cookie?.value && !token.isEmpty, "credentials \(token.debugDescription) do not match the cookie \(String(describing: cookie))"
        )
        _ = SessionAuthenticator.csrfToken(forCookie: token)
    } else {
        invariant((cookie?.value ?? "").isEmpty, "the session cookie \(String(describing: cookie)) was not read as credentials")
    }
    // Any other name the input mentions.
    if let equals = input.firstIndex(of: UInt8(ascii: "=")) {
        let name = String(decoding: input[..<equals], as: UTF8.self)
        _ = request.cookies[name]?.value
        _ = request.cookies[name.trimmingCharacters(in: .whitespaces)]?.value
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
