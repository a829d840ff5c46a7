import ChatterCore
import ChatterDomain
import ChatterStorage
import Crypto
import Foundation
import Mustache

/// Every form the pages post, by the route it posts to. A form's CSRF token is bound to its action: the
/// token a page renders for "end session" is refused by "delete account", so a button that an injected
/// attribute redirected elsewhere carries a token that is worthless there. Destructive actions have their
/// tokens rendered only on their own confirmation page.
enum FormAction: String, CaseIterable, Sendable {
    case post = "post"
    case identify = "auth/continue"
    case sendCode = "auth/code"
    case resendCode = "auth/code/resend"
    case verifyCode = "auth/code/verify"
    case password = "auth/password"
    case secondStep = "auth/second-factor"
    case stepUp = "account/verify"
    case stepUpPasskeyOptions = "account/verify/passkey/options"
    case stepUpPasskey = "account/verify/passkey"
    case secondFactorStart = "account/two-step/start"
    case secondFactorConfirm = "account/two-step/confirm"
    case recoveryCodes = "account/two-step/recovery-codes"
    case secondFactorDisable = "account/two-step/disable"
    case handoff = "v1/auth/web-session/redeem"
    case revokeSession = "account/sessions/:id/revoke"
    case rename = "account/name"
    case emailStart = "account/email"
    case emailConfirm = "account/email/confirm"
    case passwordAdd = "account/password/add"
    case passwordChange = "account/password/change"
    case signOut = "account/signout"
    case deleteAccount = "account/delete"
    case passkeySignInOptions = "auth/passkey/options"
    case passkeySignIn = "auth/passkey"
    case passkeySignUpOptions = "auth/passkey/signup/options"
    case passkeySignUp = "auth/passkey/signup"
    case passkeyAddOptions = "account/passkeys/options"
    case passkeyAdd = "account/passkeys/add"
    case passkeyRename = "account/passkeys/:id/rename"
    case passkeyDelete = "account/passkeys/:id/delete"
    case endSession = "admin/users/:id/sessions/:session/end"
    case endSessions = "admin/users/:id/sessions/end"
    case disableAccount = "admin/users/:id/disable"
    case enableAccount = "admin/users/:id/enable"
    case deleteOtherAccount = "admin/users/:id/delete"

    /// The route, as the router registers it.
    var route: String { rawValue }

    /// Changes that cannot be taken back at a click: their tokens are rendered only by their own
    /// confirmation page, never through `frame.csrf`.
    var isDestructive: Bool {
        switch self {
        case .deleteAccount, .disableAccount, .deleteOtherAccount, .passkeyDelete: true
        default: false
        }
    }

    /// The case's name: what templates write after `frame.csrf.`.
    var name: String { String(describing: self) }

    static let byName: [String: FormAction] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    /// The action whose route `path` matches (`:name` segments match any one segment); for tests and tools.
    static func matching(path: String) -> FormAction? {
        let segments = path.split(separator: "?")[0].split(separator: "/")
        return allCases.first { action in
            let pattern = action.rawValue.split(separator: "/")
            return pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
    }
}

extension FormAction {
    /// The token for this action in the browser whose secret cookie is `browserID`: an HMAC under that
    /// secret, so another site can neither read nor compute it, and nothing more is stored.
    func csrfToken(forBrowser browserID: String) -> String { csrfToken(keyed: Self.key(forBrowser: browserID)) }

    /// The HMAC keyed by a browser's secret, before any action: a page's tokens all start from one
    /// (`FormTokens`), which spares each the key's two blocks of hashing.
    static func key(forBrowser browserID: String) -> HMAC<SHA256> { HMAC(key: SymmetricKey(data: Array(browserID.utf8))) }

    func csrfToken(keyed key: HMAC<SHA256>) -> String {
        var mac = key
        mac.update(data: Array("chatterd form\n\(rawValue)".utf8))
        return Hex.encode(mac.finalize())
    }
}

/// `frame.csrf.<action>` in a template: the token for that action, made only when a template asks for it.
/// Destructive actions render nothing here; their confirmation pages carry their tokens.
///
/// A class, so that the browser's key is made once, on the first token a page asks for: a page renders in
/// one task and this value never leaves it.
final class FormTokens: MustacheParent {
    let browserID: String?
    private lazy var key: HMAC<SHA256>? = browserID.map(FormAction.key(forBrowser:))

    init(browserID: String?) { self.browserID = browserID }

    func child(named name: String) -> Any? {
        guard let action = FormAction.byName[name], !action.isDestructive, let key else { return "" }
        return action.csrfToken(keyed: key)
    }
}
