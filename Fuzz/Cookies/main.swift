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

@testable import ChatterCore
@testable import ChatterDomain
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

/// Whether one of the request's Cookie fields holds `name=value` as a whole pair: at the field's start or
/// after a `;` and any spaces and tabs, with no `;` in the value, and a `;` or the field's end after it.
/// Compared as bytes, since a combining mark after `;` joins it into one `Character`.
func holds(_ request: Request, name: String, value: String) -> Bool {
    let pair = Array((name + "=" + value).utf8)
    guard !value.utf8.contains(UInt8(ascii: ";")) else { return false }
    return request.headers[values: .cookie].contains { field in
        let bytes = Array(field.utf8)
        var start = 0
        while start <= bytes.count {
            var first = start
            while first < bytes.count, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
            let end = first + pair.count
            if end <= bytes.count, Array(bytes[first..<end]) == pair, end == bytes.count || bytes[end] == UInt8(ascii: ";") { return true }
            guard let next = bytes[start...].firstIndex(of: UInt8(ascii: ";")) else { return false }
            start = next + 1
        }
        return false
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

    let cookie = request.cookie(SessionAuthenticator.cookieName)
    if let cookie {
        invariant(!cookie.isEmpty, "an empty session cookie was read as a cookie")
        invariant(
            holds(request, name: SessionAuthenticator.cookieName, value: cookie),
            "cookie(\(SessionAuthenticator.cookieName)) returned \(cookie.debugDescription), which no field holds as a whole pair")
    }
    // With no Authorization header, the credentials are the session cookie's value, when it has one.
    if let (token, viaCookie) = SessionAuthenticator.credentials(in: request) {
        invariant(viaCookie == .cookie && token == cookie, "credentials \(token.debugDescription) do not match the cookie \(String(describing: cookie))")
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
                    holds(request, name: name, value: value),
                    "value(named: \(name.debugDescription)) returned \(value.debugDescription), which no field holds as a whole pair")
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
