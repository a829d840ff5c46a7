import ChatterTestSupport
import Foundation
import HTTPTypes
import Hummingbird

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// A browser as chatterd sees one: a cookie jar that follows `Set-Cookie`, pages asked for as HTML, and
/// forms posted with the CSRF token the pages carry.
struct WebBrowser {
    let h: Harness
    var cookies: [String: String] = [:]
    var userAgent = "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36"

    init(_ h: Harness) { self.h = h }

    var headers: HTTPFields {
        var fields: HTTPFields = [.accept: "text/html,application/xhtml+xml", .userAgent: userAgent]
        if !cookies.isEmpty { fields[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        return fields
    }

    /// The token this browser's pages put in the form posting to `action`.
    func csrf(_ action: FormAction) -> String { cookies[WebVisitor.browserCookieName].map(action.csrfToken(forBrowser:)) ?? "" }

    /// The token for the form posting to `path` (the action its route matches).
    func csrf(forPath path: String) -> String { FormAction.matching(path: path).map(csrf) ?? "" }

    mutating func get(_ path: String, extra: HTTPFields = [:]) async throws -> LiveResponse {
        var fields = headers
        fields.append(contentsOf: extra)
        return remember(try await h.client.execute(uri: path, method: .get, headers: fields))
    }

    /// Posts `fields` as a form; the CSRF token for the path's action is added unless `csrf` says otherwise.
    mutating func post(_ path: String, _ fields: [(String, String)], csrf token: String? = nil) async throws -> LiveResponse {
        var all = fields
        all.append(("csrf", token ?? csrf(forPath: path)))
        return try await postRaw(path, Self.encode(all))
    }

    /// Posts `fields` as `chatter.js` posts a passkey ceremony's first step: a form, answered with JSON.
    mutating func postForJSON(_ path: String, _ fields: [(String, String)] = [], csrf token: String? = nil) async throws -> LiveResponse {
        var all = fields
        all.append(("csrf", token ?? csrf(forPath: path)))
        return try await postRaw(path, Self.encode(all), accept: "application/json")
    }

    mutating func postRaw(_ path: String, _ body: String, accept: String? = nil) async throws -> LiveResponse {
        var fields = headers
        fields[.contentType] = "application/x-www-form-urlencoded"
        if let accept { fields[.accept] = accept }
        return remember(try await h.client.execute(uri: path, method: .post, headers: fields, body: ByteBuffer(string: body)))
    }

    static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }

    mutating func remember(_ response: LiveResponse) -> LiveResponse {
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard pair.count == 2 else { continue }
            if header.contains("Max-Age=0") || pair[1].isEmpty { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair[1] }
        }
        return response
    }

    /// Opens a page (for the browser cookie), asks for a code and enters it: the whole email-code sign-in.
    mutating func signInWithCode(_ email: String, next: String = "") async throws -> LiveResponse {
        _ = try await get("/auth")
        let sent = try await post("/auth/code", [("purpose", "signin"), ("email", email), ("next", next)])
        guard sent.status == .seeOther, let code = h.mail.lastCode(to: email) else { return sent }
        return try await post("/auth/code/verify", [("code", code)])
    }

    static func text(_ response: LiveResponse) -> String { String(buffer: response.body) }

    /// What a refused form's redirect leaves to say on the page it goes to (`WebFlash`), read off the
    /// response's cookie; nil when it says nothing.
    static func refusal(_ response: LiveResponse) -> String? {
        for header in response.headers[values: .setCookie] where header.hasPrefix(WebFlash.cookieName + "=") {
            let value = String(header.split(separator: ";")[0].dropFirst(WebFlash.cookieName.count + 1))
            guard !value.isEmpty, let bytes = Base64URL.decode(value) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        return nil
    }
}
