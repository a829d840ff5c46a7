// Fuzz target `web-forms`: arbitrary bytes as the body of every form the web pages post, through the same
// decoding the routes use (`WebSessions.decode`, CSRF first, and a passkey form's credential JSON), as the cookies the sign-in and
// account pages read back (`AuthPages.Pending`, `AuthPages.Identifier`, `WebFlash`, the sealed recovery codes), and as the admin pages' query parameters (`AuditTime`, the
// account search's `LIKE` pattern).
//
// Input: one byte that chooses the form and action (modulo the number of actions) and whether this
// browser's CSRF token is appended (high bit) and for that action or the next one (bit 6), then the body.
// The same bytes also go into a page template (the selector picks which) as every value (`HTMLText`'s rule): the
// rendered page (`PageTemplate`) has exactly the markup characters the template has with a plain value, so no
// value adds an element or an attribute, and it is byte for byte swift-mustache's rendering of the same template.

import ChatterWire
import Foundation
import FuzzSupport
import Mustache

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer

let visitor = WebVisitor(browserID: String(repeating: "b", count: 43), isNewBrowser: false, session: nil)

/// A form or a 400/403 `APIError`, never anything else.
func decode<Form: WebForm>(_ type: Form.Type, _ action: FormAction, _ text: String) {
    do {
        let form = try WebSessions.decode(Form.self, for: action, text, visitor: visitor)
        invariant(visitor.accepts(csrf: form.csrf, for: action), "\(Form.self) decoded without this browser's token for \(action)")
    } catch let error as APIError {
        invariant([.badRequest, .forbidden].contains(error.status), "decoding \(Form.self) answered \(error.status)")
    } catch {
        fatalError("fuzz invariant violated: decoding \(Form.self) threw \(Swift.type(of: error)), not an APIError")
    }
}

/// Each action with the form its route decodes.
func decode(_ action: FormAction, _ text: String) {
    switch action {
    case .post: decode(TimelinePages.PostForm.self, action, text)
    case .sendCode: decode(AuthPages.CodeForm.self, action, text)
    case .verifyCode: decode(AuthPages.VerifyForm.self, action, text)
    case .password: decode(AuthPages.PasswordForm.self, action, text)
    case .identify: decode(AuthPages.IdentifyForm.self, action, text)
    case .rename: decode(AccountPages.NameForm.self, action, text)
    case .emailStart: decode(AccountPages.EmailForm.self, action, text)
    case .emailConfirm: decode(AccountPages.EmailCodeForm.self, action, text)
    case .passwordAdd, .passwordChange: decode(AccountPages.NewPasswordForm.self, action, text)
    case .signOut: decode(AccountPages.SignOutForm.self, action, text)
    case .handoff: decode(WebSessionRoutes.ConfirmForm.self, action, text)
    case .passkeySignIn: credential(AuthenticationResponseJSON.self, action, text)
    case .passkeySignUp, .passkeyAdd: credential(RegistrationResponseJSON.self, action, text)
    case .passkeySignUpOptions: decode(PasskeyPages.SignUpOptionsForm.self, action, text)
    case .passkeyRename: decode(PasskeyPages.RenameForm.self, action, text)
    case .secondStep: decode(SecondFactorPages.CodeForm.self, action, text)
    case .secondFactorConfirm, .recoveryCodes, .secondFactorDisable: decode(SecondFactorAccountPages.CodeForm.self, action, text)
    case .stepUp:
        decode(StepUpPages.CodeForm.self, action, text)
        resume(action, text)
    case .stepUpPasskey:
        decode(StepUpPages.PasskeyForm.self, action, text)
        resume(action, text)
    case .resendCode, .revokeSession, .deleteAccount, .endSession, .endSessions, .disableAccount, .enableAccount, .deleteOtherAccount,
        .passkeySignInOptions, .passkeyAddOptions, .passkeyDelete, .secondFactorStart, .stepUpPasskeyOptions:
        decode(CSRFOnly.self, action, text)
    }
}

/// A step-up form's `resume`, as the page reads it: one of the closed set, spelled back as it came, or nothing.
func resume(_ action: FormAction, _ text: String) {
    guard let form = try? WebSessions.decode(StepUpPages.CodeForm.self, for: action, text, visitor: visitor) else { return }
    if let parsed = StepUpPages.Resume(form.resume) {
        invariant(StepUpPages.Resume(parsed.text) == parsed, "a resume read back is not itself: \(parsed)")
    }
}

/// A passkey ceremony's last form, and the credential JSON in it as the route reads it: a credential or a 400.
func credential<Credential: Decodable>(_ type: Credential.Type, _ action: FormAction, _ text: String) {
    decode(PasskeyPages.CredentialForm.self, action, text)
    guard let form = try? WebSessions.decode(PasskeyPages.CredentialForm.self, for: action, text, visitor: visitor) else { return }
    do {
        _ = try form.decoded(Credential.self)
    } catch let error as APIError {
        invariant(error.status == .badRequest, "the credential field answered \(error.status)")
    } catch {
        fatalError("fuzz invariant violated: the credential field threw \(Swift.type(of: error)), not an APIError")
    }
}

/// Every name a template asks for answers `value`, and every section renders once: each variable of each
/// template is the fuzzer's text.
struct Everything: MustacheParent, MustacheCustomRenderable {
    let value: String
    /// True renders the inverted sections (`{{^…}}`) instead of the others.
    var isNull = false
    func child(named: String) -> Any? { self }
    var renderText: String { value }
}

let pages = WebPages(policy: WebPolicy())
let box = SecretBox.ephemeral()
let userID = UUID()
let library = pages.library
let templates = pages.templateNames

func markup(_ html: String) -> [Unicode.Scalar: Int] {
    html.unicodeScalars.reduce(into: [:]) { counts, scalar in if "<>\"'".unicodeScalars.contains(scalar) { counts[scalar, default: 0] += 1 } }
}

/// A page as chatterd renders it (`PageTemplate`).
func render(_ value: Everything, _ template: String) -> String {
    pages.templates[template]?.render(value) ?? ""
}

let plain = [false, true].map { inverted in templates.map { markup(render(Everything(value: "x", isNull: inverted), $0)) } }

/// The text a `LIKE … ESCAPE '\'` pattern made by `AdminSearch` matches; nil when it holds an unescaped
/// wildcard between its enclosing `%`s, which would let a search match more than its text.
func literal(of pattern: String) -> String? {
    let scalars = Array(pattern.unicodeScalars)
    guard scalars.count >= 2, scalars.first == "%", scalars.last == "%" else { return nil }
    var text = String.UnicodeScalarView()
    var escaped = false
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
    let action = FormAction.allCases[Int(selector & 0x3f) % FormAction.allCases.count]
    let other = FormAction.allCases[(Int(selector & 0x3f) + 1) % FormAction.allCases.count]
    if selector & 0x80 != 0 { text += "&csrf=" + (selector & 0x40 == 0 ? action : other).csrfToken(forBrowser: visitor.browserID) }
    decode(action, text)

    // One template per input (the selector picks it too), so an input costs one render, not twelve.
    let value = String(decoding: input, as: UTF8.self)
    let index = Int(selector) % templates.count
    let inverted = selector & 0x40 != 0
    let rendered = render(Everything(value: value, isNull: inverted), templates[index])
    invariant(markup(rendered) == plain[inverted ? 1 : 0][index], "\(templates[index]) rendered \(value.debugDescription) with markup of its own")
    // The compiled template and swift-mustache, which rendered the pages before it, agree byte for byte.
    let reference = library.render(Everything(value: value, isNull: inverted), withTemplate: templates[index]) ?? ""
    invariant(rendered == reference, "\(templates[index]) rendered \(value.debugDescription) otherwise than swift-mustache")

    if let pending = AuthPages.Pending(cookie: String(decoding: input, as: UTF8.self)) {
        invariant(EmailAddress.normalize(pending.email) == pending.email, "a pending address \(pending.email.debugDescription) is not normalized")
        if let next = pending.next { invariant(WebSessions.sameSitePath(next) == next, "a pending next \(next.debugDescription) is not a same-site path") }
    }

    // The other cookies the pages read back: the first step's address, a refusal's message, the recovery
    // codes on their way to their page (sealed: nothing a browser makes up opens).
    if let identifier = AuthPages.Identifier(cookie: value) {
        invariant(identifier.email.utf8.count <= 4 * EmailAddress.maximumBytes * 2, "an identifier of \(identifier.email.utf8.count) bytes")
        if let next = identifier.next {
            invariant(WebSessions.sameSitePath(next) == next, "an identifier's next \(next.debugDescription) is not a same-site path")
        }
    }
    if let message = WebFlash.message(cookie: value) { invariant(message.utf8.count <= WebFlash.maximumBytes, "a flash of \(message.utf8.count) bytes") }
    if let sealed = Base64URL.decode(value) {
        invariant(box.openShown(sealed, for: userID, session: userID, at: Date()) == nil, "made-up bytes opened as recovery codes")
    }

    let query = String(decoding: input, as: UTF8.self)
    if let date = AuditTime.parse(query) { invariant(date.timeIntervalSince1970.isFinite, "\(query.debugDescription) parsed to \(date)") }
    invariant(
        literal(of: AdminSearch.likePattern(query)).map { Array($0.unicodeScalars) } == Array(query.unicodeScalars),
        "the search \(query.debugDescription) matches more than itself")
    return 0
}

runLibFuzzer(fuzz)
