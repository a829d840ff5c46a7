/// How a session began: kept with the session and in the audit log, and shown in session lists.
public enum SignInMethod: String, Sendable, CaseIterable, Codable {
    case google, apple, email, password, passkey
    /// A web-session hand-off: a signed-in app opened the browser.
    case web
}

extension AuthenticatedSession {
    /// The method the session began with; nil for a value no longer in the set.
    package var signInMethod: SignInMethod? { SignInMethod(rawValue: method) }
}
