import Foundation
import Observation

/// The email and password form (F2). Messages for a field appear only once the user has typed in it;
/// submit is possible only when every field is valid; the password rules come from the server.
@MainActor @Observable
public final class PasswordForm {
    /// What submit does.
    public enum Mode: Sendable, Equatable {
        /// Sign in to an existing account.
        case signIn
        /// New account: the address is proven with an emailed code first.
        case signUp
    }

    /// Sign in or create an account; `switchMode()` switches it.
    public var mode: Mode
    /// The address, as typed; `load()` fills in the remembered one.
    public var email = "" { didSet { emailEdited = true } }
    /// The password, as typed; cleared once a submit succeeds.
    public var password = "" { didSet { passwordEdited = true } }
    /// The emailed code, for sign-up.
    public var code: String {
        get { codeDigits }
        set { codeDigits = String(newValue.filter(\.isNumber).prefix(6)) }
    }
    private var codeDigits = ""
    /// Show the password as text instead of dots; `togglePasswordVisibility()` flips it.
    public var isPasswordVisible = false
    /// The server's password rules; `nil` until `load()` has them, and creating an account waits for them.
    public private(set) var policy: PasswordPolicy?
    /// A request is on its way; show a spinner.
    public private(set) var isLoading = false
    /// The last failure, for a banner; `nil` again when the next request starts or the mode changes.
    public private(set) var errorBanner: String?
    /// The session, once signed in or signed up; `nil` until then.
    public private(set) var signedIn: AuthSession?
    /// The password was right and the account has a second factor: show this step for its code; `nil` again
    /// when the next request starts.
    public private(set) var secondStep: SecondStepForm?
    private var emailEdited = false
    private var passwordEdited = false

    @ObservationIgnored let client: ChatterClient

    /// A form over `client`, starting in `mode`.
    public init(client: ChatterClient, mode: Mode = .signIn) {
        self.client = client
        self.mode = mode
    }

    /// Fetches the server's rules and the remembered email; call when the form appears.
    public func load() async {
        if email.isEmpty, let remembered = await client.rememberedEmail() {
            email = remembered
            emailEdited = false
        }
        do {
            policy = try await client.passwordPolicy()
        } catch {
            errorBanner = ChatterError.banner(for: error)
        }
    }

    /// What is wrong with the address, for under the field; `nil` until the user has typed in it.
    public var emailMessage: String? { emailEdited ? FormValidation.emailProblem(email) : nil }

    /// What is wrong with the password, for under the field; `nil` until the user has typed in it.
    /// Signing in asks only for a password; signing up checks it against `policy`.
    public var passwordMessage: String? {
        guard passwordEdited else { return nil }
        return passwordProblem
    }

    private var passwordProblem: String? {
        // Signing in checks only presence: an old account may predate today's rules.
        if mode == .signIn { return password.isEmpty ? "Enter your password." : nil }
        guard let policy else { return "Loading the password rules…" }
        return FormValidation.passwordProblem(password, policy: policy, email: email)
    }

    /// The strength meter's value while creating an account; `nil` when signing in or while empty.
    public var strength: PasswordStrength? { mode == .signUp && !password.isEmpty ? PasswordStrength.estimate(password) : nil }

    /// Whether submit works: every field valid (and, to sign up, a 6-digit code), no request on its way.
    public var canSubmit: Bool {
        !isLoading && FormValidation.emailProblem(email) == nil && passwordProblem == nil && (mode == .signIn || code.count == 6)
    }

    /// The submit button's title.
    public var submitTitle: String { mode == .signIn ? "Sign In" : "Create Account" }

    /// Switches between signing in and creating an account; the other mode's error no longer applies.
    public func switchMode() {
        mode = mode == .signIn ? .signUp : .signIn
        errorBanner = nil
    }

    /// The title of the button that switches mode.
    public var switchModeTitle: String { mode == .signIn ? "New here? Create an account" : "Have an account? Sign in" }

    /// Shows or hides the password.
    public func togglePasswordVisibility() { isPasswordVisible.toggle() }

    /// Sends the sign-up code to the address in the form.
    public func sendCode() async {
        guard FormValidation.emailProblem(email) == nil else {
            emailEdited = true
            return
        }
        await run { _ = try await self.client.requestEmailCode(email: self.email) }
    }

    /// Signs in or creates the account, by `mode`; returns whether it did. With a field invalid it
    /// sends nothing and shows every field's message.
    @discardableResult
    public func submit() async -> Bool {
        guard canSubmit else {
            emailEdited = true
            passwordEdited = true
            return false
        }
        await run {
            switch self.mode {
            case .signIn: self.signedIn = try await self.client.signIn(email: self.email, password: self.password)
            case .signUp: self.signedIn = try await self.client.signUp(email: self.email, code: self.code, password: self.password)
            }
            // The password is not kept anywhere once it has been used.
            self.password = ""
            self.passwordEdited = false
        }
        return signedIn != nil
    }

    /// What the form shows next, as a closed set: the fields, the second step, or the session.
    public enum Progress: Equatable {
        /// The email and password (and, to sign up, the code).
        case form
        /// The password was right; the account's second factor comes next.
        case secondStep(SecondStepForm)
        /// Signed in.
        case signedIn(AuthSession)

        /// The same step; two second steps are equal when they are the same form.
        public static func == (lhs: Progress, rhs: Progress) -> Bool {
            switch (lhs, rhs) {
            case (.form, .form): true
            case (.secondStep(let a), .secondStep(let b)): a === b
            case (.signedIn(let a), .signedIn(let b)): a == b
            default: false
            }
        }
    }

    /// Where the form stands; its screen switches over it.
    public var progress: Progress {
        if let signedIn { return .signedIn(signedIn) }
        if let secondStep { return .secondStep(secondStep) }
        return .form
    }

    private func secondStepFinished(_ step: SecondStepForm?, _ session: AuthSession?) {
        guard let step, step === secondStep else { return }
        secondStep = nil
        if let session {
            signedIn = session
        } else if step.mustStartOver {
            errorBanner = "That sign-in waited too long. Enter your password again."
        }
    }

    private func run(_ work: () async throws -> Void) async {
        isLoading = true
        errorBanner = nil
        // A new attempt: a second step an earlier one left (spent or expired by now) is no way forward.
        secondStep = nil
        defer { isLoading = false }
        do {
            try await work()
        } catch let error as ChatterError where error.secondFactorChallenge != nil {
            // Not a failure: the password is used up all the same, and the code comes next.
            secondStep = error.secondFactorChallenge.map { challenge in
                let step = SecondStepForm(client: client, challenge: challenge, email: email)
                step.onFinish = { [weak self, weak step] session in self?.secondStepFinished(step, session) }
                return step
            }
            password = ""
            passwordEdited = false
        } catch {
            errorBanner = ChatterError.banner(for: error)
        }
    }
}
