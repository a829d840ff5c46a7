import Foundation
import Observation

/// The second step of a sign-in (the first factor passed, the account has a second): one field for the
/// authenticator app's 6-digit code or a recovery code. `PasswordForm` and `EmailCodeFlow` make one when
/// chatterd asks for it; an app that signs in another way makes one from `ChatterError.secondFactorChallenge`.
@MainActor @Observable
public final class SecondStepForm {
    /// The code as typed: the app's six digits (spaces allowed) or a recovery code `XXXXX-XXXXX`.
    public var code = ""
    /// "Do not ask again on this device": later sign-ins to the address skip the step (until the password changes).
    public var rememberDevice = false
    /// A request is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner; `nil` again when the next request starts.
    public private(set) var errorBanner: String?
    /// The session, once the code is accepted.
    public private(set) var signedIn: AuthSession?
    /// The waiting sign-in expired or was completed elsewhere: start the sign-in again (`startOver()`).
    public private(set) var mustStartOver = false
    /// The user chose to type a recovery code ("Use a recovery code"): the field takes letters.
    public var entersRecoveryCode = false

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let challenge: SecondFactorChallenge
    @ObservationIgnored let email: String?
    /// The flow that made this step: told the session once the code is accepted, or nil when the user starts over.
    @ObservationIgnored var onFinish: (@MainActor (AuthSession?) -> Void)?

    /// The step for `challenge`; `email`: the address the first step used (its device token is kept).
    public init(client: ChatterClient, challenge: SecondFactorChallenge, email: String? = nil) {
        self.client = client
        self.challenge = challenge
        self.email = email
    }

    /// What the typed text is, if anything yet: the app's code (six digits) or a recovery code (ten symbols).
    public var kind: SecondFactorCodeKind? { SecondFactorCodeKind(code) }

    /// Whether submit works: a code of either kind, no request on its way, the sign-in still waiting.
    public var canSubmit: Bool { !isLoading && !mustStartOver && kind != nil }

    /// The code field's keyboard: the number pad for the app's six digits, letters for a recovery code.
    public var codeKeyboard: CodeKeyboard { CodeKeyboard.forSecondFactor(code, recovery: entersRecoveryCode) }

    /// The button beside the field that switches its keyboard.
    public var switchKeyboardTitle: String { codeKeyboard == .digits ? "Use a recovery code" : "Use the app's code" }

    /// Switches between the app's code and a recovery code; what was typed goes, as it was for the other kind.
    public func switchKeyboard() {
        entersRecoveryCode = codeKeyboard == .digits
        code = ""
    }

    /// Back to the first step: the sign-in that made this step shows its form again (after `mustStartOver`, or
    /// when the user would rather sign in another way).
    public func startOver() { finish(nil) }

    /// Sends the code; returns whether it signed in. A wrong code is cleared, for the next one.
    @discardableResult
    public func submit() async -> Bool {
        guard canSubmit else { return false }
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do {
            let session = try await client.completeSignIn(challenge, code: code, email: email, rememberDevice: rememberDevice)
            signedIn = session
            finish(session)
        } catch {
            code = ""
            errorBanner = ChatterError.banner(for: error)
            if case ChatterError.server(401, let body?) = error, body.code == .secondStepExpired { mustStartOver = true }
        }
        return signedIn != nil
    }

    private func finish(_ session: AuthSession?) {
        let owner = onFinish
        onFinish = nil
        owner?(session)
    }
}

/// The two kinds of code a second step takes, told apart as the user types.
public enum SecondFactorCodeKind: Sendable, Equatable {
    /// Six digits from the authenticator app.
    case authenticator
    /// One of the ten recovery codes.
    case recovery

    /// The kind `text` is, read as chatterd reads it (`SecondFactorCode`), or nil while it is neither.
    public init?(_ text: String) {
        switch SecondFactorCode(text) {
        case .authenticator: self = .authenticator
        case .recovery: self = .recovery
        case nil: return nil
        }
    }
}
