import Foundation
import Observation

/// "Confirm it is you" before an action that matters. Once the session's last proof is ten minutes old,
/// chatterd answers such an action `step_up_required` (an account with a second factor: its code, or a passkey)
/// or `sign_in_again` (an account without one: a passkey, or any of the account's ways in). A flow runs the
/// action through `perform(_:_:)`, which then sets `asking`, waits until the user proves it (`submitCode()`,
/// `usePasskey()`, `submitPassword()`, `submitEmailCode()`, or `confirm(with:)` for Google or Apple) or gives
/// up (`cancel()`), and runs the action again. One prompt serves every flow of a screen.
@MainActor @Observable
public final class StepUpPrompt {
    /// What the prompt asks for; its view switches over it.
    public enum Ask: Sendable, Equatable {
        /// The account's second factor: the authenticator app's code, a recovery code, or a passkey.
        case secondFactor
        /// A fresh first factor: a passkey, the password, an emailed code, or Google or Apple (`ways`).
        case signInAgain
    }

    /// A proof the account offers for `.signInAgain`, by what it signs in with.
    public enum Way: String, Sendable, Equatable, CaseIterable {
        /// One of the account's passkeys (`usePasskey()`).
        case passkey
        /// The account's password (`submitPassword()`).
        case password
        /// A code emailed to the account's address (`sendEmailCode()`, `submitEmailCode()`).
        case emailCode
        /// Google Sign-In for the account's Google identity (`confirm(with: .google(…))`).
        case google
        /// Sign in with Apple for the account's Apple ID (`confirm(with: .apple(…))`).
        case apple
    }

    /// What is being confirmed, for the prompt's title.
    public enum Purpose: Sendable, Equatable {
        /// Deleting the account.
        case deleteAccount
        /// Signing out of every device.
        case signOutEverywhere
        /// Ending another device's session.
        case endSession
        /// Changing the password.
        case changePassword
        /// Adding a passkey.
        case addPasskey
        /// Removing a passkey.
        case removePasskey
        /// Adding an authenticator app.
        case addAuthenticator

        /// The prompt's title: "Confirm it is you to delete your account".
        public var title: String {
            let what =
                switch self {
                case .deleteAccount: "delete your account"
                case .signOutEverywhere: "sign out of every device"
                case .endSession: "end that session"
                case .changePassword: "change your password"
                case .addPasskey: "add a passkey"
                case .removePasskey: "remove a passkey"
                case .addAuthenticator: "add an authenticator app"
                }
            return "Confirm it is you to \(what)"
        }
    }

    /// What to ask for; nil while nothing waits. Show the prompt (a sheet) while it is set.
    public private(set) var asking: Ask?
    /// What the waiting action is.
    public private(set) var purpose: Purpose?
    /// The ways this account may confirm with, for `.signInAgain` (read when the prompt opens).
    public private(set) var ways: [Way] = []
    /// Whether `usePasskey()` works: the account has a passkey and this prompt an authenticator.
    public private(set) var offersPasskey = false
    /// The code as typed: the app's six digits or a recovery code (`.secondFactor`), or an emailed code.
    public var code = ""
    /// The password as typed (`.signInAgain`); cleared after each try.
    public var password = ""
    /// The emailed code was sent: show its field.
    public private(set) var emailCodeSent = false
    /// The account's address, which the password and the emailed code are for.
    public private(set) var email: String?
    /// A request is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorBanner: String?

    /// Whether `prompt.isPrompting`: kept for the views and apps written before `asking`.
    public var isPrompting: Bool { asking != nil }

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let authenticator: (any PasskeyAuthenticator)?
    @ObservationIgnored private var waiter: CheckedContinuation<Bool, Never>?

    /// A prompt over `client`; with `authenticator` it offers the account's passkeys too.
    public init(client: ChatterClient, authenticator: (any PasskeyAuthenticator)? = nil) {
        self.client = client
        self.authenticator = authenticator
    }

    /// The user chose to type a recovery code ("Use a recovery code"): the field takes letters.
    public var entersRecoveryCode = false
    /// The code field's keyboard: the number pad for six digits, the full keyboard for a recovery code.
    public var codeKeyboard: CodeKeyboard {
        asking == .secondFactor ? CodeKeyboard.forSecondFactor(code, recovery: entersRecoveryCode) : .digits
    }

    /// The button beside the code field that switches its keyboard, as the second step's does.
    public var switchKeyboardTitle: String { codeKeyboard == .digits ? "Use a recovery code" : "Use the app's code" }

    /// Switches between the app's code and a recovery code; what was typed goes.
    public func switchKeyboard() {
        entersRecoveryCode = codeKeyboard == .digits
        code = ""
    }

    /// Runs `action`. When chatterd asks for a fresh proof first, the prompt asks for it and waits; once given,
    /// the action runs again. Returns false when the user gave up (or the calling task ended) instead; any other
    /// failure is thrown, for the calling flow's banner.
    @discardableResult
    public func perform(_ purpose: Purpose, _ action: @MainActor () async throws -> Void) async throws -> Bool {
        do {
            try await action()
            return true
        } catch let error as ChatterError where error.isStepUpRequired || error.isSignInAgain {
            guard await ask(error.isStepUpRequired ? .secondFactor : .signInAgain, for: purpose) else { return false }
            try await action()
            return true
        }
    }

    /// Proves it with the app's code or a recovery code (`.secondFactor`).
    @discardableResult
    public func submitCode() async -> Bool {
        guard asking == .secondFactor, SecondFactorCodeKind(code) != nil else { return false }
        return await prove(.code(code))
    }

    /// Proves it with one of the account's passkeys, in the system sheet.
    @discardableResult
    public func usePasskey() async -> Bool {
        guard let authenticator, offersPasskey else { return false }
        return await prove(.passkey(authenticator))
    }

    /// Proves it with the account's password (`.signInAgain`).
    @discardableResult
    public func submitPassword() async -> Bool {
        guard asking == .signInAgain, let email, !password.isEmpty else { return false }
        return await prove(.password(email: email, password: password))
    }

    /// Emails a code to the account's address (`.signInAgain`), for `submitEmailCode()`.
    public func sendEmailCode() async {
        guard asking == .signInAgain, let email, !isLoading else { return }
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do {
            _ = try await client.requestEmailCode(email: email)
            emailCodeSent = true
        } catch {
            // A code sent moments ago is still in the mailbox: its field shows all the same.
            if case ChatterError.rateLimited = error { emailCodeSent = true }
            errorBanner = ChatterError.banner(for: error)
        }
    }

    /// Proves it with the emailed code (`.signInAgain`).
    @discardableResult
    public func submitEmailCode() async -> Bool {
        guard asking == .signInAgain, emailCodeSent, let email, code.count == 6 else { return false }
        return await prove(.emailCode(email: email, code: code))
    }

    /// Proves it another way the app holds: Google's or Apple's answer for the same account.
    @discardableResult
    public func confirm(with proof: Reauthentication) async -> Bool {
        guard asking != nil else { return false }
        return await prove(proof)
    }

    /// Shows the prompt with nothing waiting: what a preview draws (`StepUpPrompt.sample(asking:)`).
    func showForPreview(_ ask: Ask, purpose: Purpose) {
        self.purpose = purpose
        asking = ask
        email = "ada@example.com"
        offersPasskey = authenticator != nil
        ways = ask == .signInAgain ? [.passkey, .password, .emailCode] : []
    }

    /// Gives up: the waiting action does not run.
    public func cancel() { finish(false) }

    private func ask(_ ask: Ask, for purpose: Purpose) async -> Bool {
        finish(false)  // an earlier action still waiting gives up: one prompt at a time
        // The ways are read before the prompt shows, so it never shows without them.
        await loadWays()
        guard !Task.isCancelled else { return false }
        finish(false)  // another action asked while the ways were read: the later one asks
        self.purpose = purpose
        asking = ask
        return await withTaskCancellationHandler {
            await withCheckedContinuation { waiter = $0 }
        } onCancel: {
            // The screen went away: the action gives up rather than wait for a prompt nobody sees.
            Task { @MainActor [weak self] in self?.cancel() }
        }
    }

    private func loadWays() async {
        let profile = try? await client.me()
        email = profile?.email
        let methods = Set(profile?.methods ?? [])
        offersPasskey = authenticator != nil && methods.contains("passkey")
        ways = Way.allCases.filter { way in
            switch way {
            case .passkey: offersPasskey
            case .password: methods.contains("password") && email != nil
            case .emailCode: email != nil
            case .google: methods.contains("google")
            case .apple: methods.contains("apple")
            }
        }
    }

    private func prove(_ proof: Reauthentication) async -> Bool {
        guard !isLoading else { return false }
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do {
            try await client.reauthenticate(proof)
            finish(true)
            return true
        } catch let error as ChatterError where error.secondFactorChallenge != nil {
            // The account has a second factor by now: its code is what confirms it.
            asking = .secondFactor
            errorBanner = "Enter the code from your authenticator app, or a recovery code."
        } catch {
            errorBanner = ChatterError.banner(for: error)
        }
        code = ""
        password = ""
        return false
    }

    private func finish(_ proved: Bool) {
        asking = nil
        purpose = nil
        code = ""
        password = ""
        emailCodeSent = false
        entersRecoveryCode = false
        if !proved { errorBanner = nil }
        let waiting = waiter
        waiter = nil
        waiting?.resume(returning: proved)
    }
}

/// The keyboard a code field asks for. A second step's code is the app's six digits or a recovery code of
/// letters and digits: the number pad first, and a button ("Use a recovery code") for the full keyboard.
public enum CodeKeyboard: Sendable, Equatable {
    /// The number pad: digits only.
    case digits
    /// Letters and digits (a recovery code, `XXXXX-XXXXX`).
    case lettersAndDigits

    /// The keyboard for a second step's field: letters once the user chose a recovery code, or once the text
    /// holds one (pasted, say), so a correction can be typed.
    public static func forSecondFactor(_ typed: String, recovery: Bool) -> CodeKeyboard {
        recovery || typed.contains(where: \.isLetter) || typed.contains("-") ? .lettersAndDigits : .digits
    }

    /// Whether a key of this keyboard types `character`: the number pad has digits and nothing else.
    public func types(_ character: Character) -> Bool {
        switch self {
        case .digits: character.isASCII && character.isNumber
        case .lettersAndDigits: true
        }
    }
}
