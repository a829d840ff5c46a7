import Foundation
import Observation

/// Password-less sign-in (F3): the email step, then the 6-digit code step, with a resend button that
/// waits out the server's cooldown, counting down.
@MainActor @Observable
public final class EmailCodeFlow {
    /// Where the flow stands.
    public enum Step: Sendable, Equatable {
        /// Asking for the address.
        case email
        /// Waiting for the code emailed to `email`.
        case code
        /// Signed in, with the session chatterd issued.
        case signedIn(AuthSession)
        /// The code was right and the account has a second factor: show this step for its code.
        case secondFactor(SecondStepForm)

        /// The same step; two second steps are equal when they are the same form.
        public static func == (lhs: Step, rhs: Step) -> Bool {
            switch (lhs, rhs) {
            case (.email, .email), (.code, .code): true
            case (.signedIn(let a), .signedIn(let b)): a == b
            case (.secondFactor(let a), .secondFactor(let b)): a === b
            default: false
            }
        }
    }

    /// The step to show; `.email` at first.
    public private(set) var step = Step.email
    /// The address the code goes to, as typed.
    public var email = ""
    /// The code as typed: digits only, at most 6; anything else is dropped as it is set.
    public var code: String {
        get { codeDigits }
        set { codeDigits = String(newValue.filter(\.isNumber).prefix(6)) }
    }
    /// A request is on its way; the buttons are disabled.
    public private(set) var isLoading = false
    /// The last failure, for a banner; `nil` again when the next request starts.
    public private(set) var errorMessage: String?
    /// Whole seconds until another code may be requested; 0 when resend is possible.
    public private(set) var resendCountdown = 0
    private var codeDigits = ""

    @ObservationIgnored let client: ChatterClient
    @ObservationIgnored let now: @Sendable () -> Date
    @ObservationIgnored let sleep: @Sendable (Duration) async throws -> Void
    @ObservationIgnored private var resendAt: Date?
    @ObservationIgnored private var countdown: Task<Void, Never>?

    /// `now` and `sleep` drive the countdown; tests pass a clock they move by hand.
    public init(
        client: ChatterClient, now: @escaping @Sendable () -> Date = Date.init,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.client = client
        self.now = now
        self.sleep = sleep
    }

    /// What is wrong with the address, for under the field; `nil` while it is empty or plausible.
    public var emailMessage: String? { email.isEmpty ? nil : FormValidation.emailProblem(email) }
    /// Whether the email step's button works: a plausible address and no request on its way.
    public var canSendCode: Bool { !isLoading && FormValidation.emailProblem(email) == nil }
    /// Whether the code step's button works: six digits and no request on its way.
    public var canVerify: Bool { !isLoading && code.count == 6 }
    /// Whether resend works: on the code step, the cooldown over, no request on its way.
    public var canResend: Bool { !isLoading && step == .code && resendCountdown == 0 }

    /// The resend button's title, counting down while the server's cooldown runs.
    public var resendTitle: String { resendCountdown > 0 ? "Resend code in \(resendCountdown) s" : "Resend code" }

    /// Email step: asks the server to send a code, then shows the code step.
    public func sendCode() async {
        guard canSendCode else { return }
        await request()
    }

    /// Clears the code and asks for a new one, which restarts the countdown; does nothing unless `canResend`.
    public func resend() async {
        guard canResend else { return }
        code = ""
        await request()
    }

    /// Sends the code: on success `step` becomes `.signedIn`; a wrong or expired code is cleared and
    /// `errorMessage` says why. Does nothing unless `canVerify`.
    public func verify() async {
        guard canVerify else { return }
        isLoading = true
        errorMessage = nil
        defer { isLoading = false }
        do {
            step = .signedIn(try await client.verifyEmailCode(email: email, code: code))
            countdown?.cancel()
        } catch let error as ChatterError where error.secondFactorChallenge != nil {
            step =
                error.secondFactorChallenge.map { challenge in
                    let form = SecondStepForm(client: client, challenge: challenge, email: email)
                    form.onFinish = { [weak self, weak form] session in self?.secondStepFinished(form, session) }
                    return .secondFactor(form)
                } ?? .code
            countdown?.cancel()
        } catch {
            code = ""
            errorMessage = ChatterError.banner(for: error)
        }
    }

    private func secondStepFinished(_ form: SecondStepForm?, _ session: AuthSession?) {
        guard let form, step == .secondFactor(form) else { return }
        if let session {
            step = .signedIn(session)
        } else {
            changeEmail()
            if form.mustStartOver { errorMessage = "That sign-in waited too long. Ask for a new code." }
        }
    }

    /// Back to the email step, for a typo in the address.
    public func changeEmail() {
        step = .email
        code = ""
        errorMessage = nil
    }

    /// Recomputes the countdown from the clock; the countdown task calls it every second.
    public func tick() {
        guard let resendAt else { return }
        resendCountdown = max(0, Int(resendAt.timeIntervalSince(now()).rounded(.up)))
    }

    private func request() async {
        isLoading = true
        errorMessage = nil
        defer { isLoading = false }
        do {
            let answer = try await client.requestEmailCode(email: email)
            step = .code
            startCountdown(seconds: answer.resendAfter)
        } catch {
            errorMessage = ChatterError.banner(for: error)
            // Too soon: count down the wait the server named.
            // A code sent moments ago is still in the mailbox, so the code step is where the user goes.
            if case ChatterError.rateLimited(let seconds, _) = error {
                step = .code
                startCountdown(seconds: seconds)
            }
        }
    }

    private func startCountdown(seconds: Int) {
        resendAt = now().addingTimeInterval(TimeInterval(seconds))
        tick()
        countdown?.cancel()
        countdown = Task { [weak self, sleep] in
            while !Task.isCancelled {
                try? await sleep(.seconds(1))
                guard let self, !Task.isCancelled else { return }
                self.tick()
                if self.resendCountdown == 0 { return }
            }
        }
    }
}
