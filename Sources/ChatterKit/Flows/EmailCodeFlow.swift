import Foundation
import Observation

/// Password-less sign-in (F3): the email step, then the 6-digit code step, with a resend button that
/// waits out the server's cooldown, counting down.
@MainActor @Observable
public final class EmailCodeFlow {
    public enum Step: Sendable, Equatable {
        case email
        case code
        case signedIn(AuthSession)
    }

    public private(set) var step = Step.email
    public var email = ""
    public var code: String {
        get { codeDigits }
        set { codeDigits = String(newValue.filter(\.isNumber).prefix(6)) }
    }
    public private(set) var isLoading = false
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

    public var emailMessage: String? { email.isEmpty ? nil : FormValidation.emailProblem(email) }
    public var canSendCode: Bool { !isLoading && FormValidation.emailProblem(email) == nil }
    public var canVerify: Bool { !isLoading && code.count == 6 }
    public var canResend: Bool { !isLoading && step == .code && resendCountdown == 0 }

    /// Email step: asks the server to send a code, then shows the code step.
    public func sendCode() async {
        guard canSendCode else { return }
        await request()
    }

    public func resend() async {
        guard canResend else { return }
        code = ""
        await request()
    }

    public func verify() async {
        guard canVerify else { return }
        isLoading = true
        errorMessage = nil
        defer { isLoading = false }
        do {
            step = .signedIn(try await client.verifyEmailCode(email: email, code: code))
            countdown?.cancel()
        } catch {
            code = ""
            errorMessage = ChatterError.describe(error)
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
            errorMessage = ChatterError.describe(error)
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
