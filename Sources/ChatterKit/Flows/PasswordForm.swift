import Foundation
import Observation

/// The email and password form (F2). Messages for a field appear only once the user has typed in it;
/// submit is possible only when every field is valid; the password rules come from the server.
@MainActor @Observable
public final class PasswordForm {
    public enum Mode: Sendable, Equatable {
        case signIn
        /// New account: the address is proven with an emailed code first.
        case signUp
    }

    public var mode: Mode
    public var email = "" { didSet { emailEdited = true } }
    public var password = "" { didSet { passwordEdited = true } }
    /// The emailed code, for sign-up.
    public var code: String {
        get { codeDigits }
        set { codeDigits = String(newValue.filter(\.isNumber).prefix(6)) }
    }
    private var codeDigits = ""
    public var isPasswordVisible = false
    public private(set) var policy: PasswordPolicy?
    public private(set) var isLoading = false
    public private(set) var errorBanner: String?
    public private(set) var signedIn: AuthSession?
    private var emailEdited = false
    private var passwordEdited = false

    @ObservationIgnored let client: ChatterClient

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
            errorBanner = ChatterError.describe(error)
        }
    }

    public var emailMessage: String? { emailEdited ? FormValidation.emailProblem(email) : nil }

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

    public var strength: PasswordStrength? { mode == .signUp && !password.isEmpty ? PasswordStrength.estimate(password) : nil }

    public var canSubmit: Bool {
        !isLoading && FormValidation.emailProblem(email) == nil && passwordProblem == nil && (mode == .signIn || code.count == 6)
    }

    public func togglePasswordVisibility() { isPasswordVisible.toggle() }

    /// Sends the sign-up code to the address in the form.
    public func sendCode() async {
        guard FormValidation.emailProblem(email) == nil else {
            emailEdited = true
            return
        }
        await run { _ = try await self.client.requestEmailCode(email: self.email) }
    }

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

    private func run(_ work: () async throws -> Void) async {
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do { try await work() } catch { errorBanner = ChatterError.describe(error) }
    }
}
