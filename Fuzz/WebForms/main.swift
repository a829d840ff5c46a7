// Fuzz target `web-forms`: arbitrary bytes as the body of every form the web pages post, through the same
// decoding the routes use (`WebSessions.decode`, CSRF first), as the pending-code cookie the sign-in
// pages read back (`AuthPages.Pending`), and as the admin pages' query parameters (`AuditTime`, the
// account search's `LIKE` pattern).
//
// Input: one byte that chooses the form (modulo the number of forms) and whether this browser's CSRF token
// is appended, then the body.

@testable import ChatterServer
import Foundation
import FuzzSupport

let visitor = WebVisitor(browserID: String(repeating: "b", count: 43), isNewBrowser: false, session: nil)

/// A form or a 400/403 `APIError`, never anything else.
func decode<Form: WebForm>(_ type: Form.Type, _ text: String) {
    do {
        let form = try WebSessions.decode(Form.self, text, visitor: visitor)
        invariant(visitor.accepts(csrf: form.csrf), "\(Form.self) decoded without this browser's token")
    } catch let error as APIError {
        invariant([.badRequest, .forbidden].contains(error.status), "decoding \(Form.self) answered \(error.status)")
    } catch {
        fatalError("fuzz invariant violated: decoding \(Form.self) threw \(Swift.type(of: error)), not an APIError")
    }
}

let forms: [@Sendable (String) -> Void] = [
    { decode(TimelinePages.PostForm.self, $0) },
    { decode(AuthPages.CodeForm.self, $0) },
    { decode(AuthPages.VerifyForm.self, $0) },
    { decode(AuthPages.PasswordForm.self, $0) },
    { decode(AccountPages.SignOutForm.self, $0) },
    { decode(WebSessionRoutes.ConfirmForm.self, $0) },
    { decode(CSRFOnly.self, $0) },
]

/// The text a `LIKE … ESCAPE '\'` pattern made by `AdminSearch` matches; nil when it holds an unescaped
/// wildcard between its enclosing `%`s, which would let a search match more than its text.
func literal(of pattern: String) -> String? {
    let scalars = Array(pattern.unicodeScalars)
    guard scalars.count >= 2, scalars.first == "%", scalars.last == "%" else { return nil }
    var text = String.UnicodeScalarView(), escaped = false
    for scalar in scalars.dropFirst().dropLast() {
        if escaped {
            text.append(scalar)
            escaped = false
        } else if scalar == "\\" {
            escaped = true
        } else if scalar == "%" || scalar == "_" {
            return nil
        } else {
            text.append(scalar)
        }
    }
    return escaped ? nil : String(text)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let selector = input.first else { return 0 }
    var text = String(decoding: input.dropFirst(), as: UTF8.self)
    if selector & 0x80 != 0 { text += "&csrf=" + visitor.csrfToken }
    forms[Int(selector & 0x7f) % forms.count](text)

    if let pending = AuthPages.Pending(cookie: String(decoding: input, as: UTF8.self)) {
        invariant(EmailAddress.normalize(pending.email) == pending.email, "a pending address \(pending.email.debugDescription) is not normalized")
        if let next = pending.next { invariant(WebSessionRoutes.sameSitePath(next) == next, "a pending next \(next.debugDescription) is not a same-site path") }
    }

    let query = String(decoding: input, as: UTF8.self)
    if let date = AuditTime.parse(query) { invariant(date.timeIntervalSince1970.isFinite, "\(query.debugDescription) parsed to \(date)") }
    invariant(
        literal(of: AdminSearch.likePattern(query)).map { Array($0.unicodeScalars) } == Array(query.unicodeScalars),
        "the search \(query.debugDescription) matches more than itself")
    return 0
}

runLibFuzzer(fuzz)
