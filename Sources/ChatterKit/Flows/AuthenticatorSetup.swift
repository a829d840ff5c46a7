import Foundation
import Observation

/// Adding an authenticator app from the account screen: `start()` fetches the key (`qrPayload` for a QR
/// code the app draws, `secret` to type by hand), `confirm()` sends the app's first code and shows the ten
/// recovery codes once. `StepUpPrompt` and `regenerate`/`disable` need the app's code later on.
@MainActor @Observable
public final class AuthenticatorSetup {
    /// Where the setup stands.
    public enum Step: Sendable, Equatable {
        /// Not started (or the account has none).
        case idle
        /// Showing the key, waiting for the app's first code.
        case scanning(TOTPEnrolment)
        /// On: the recovery codes, to show this once.
        case enabled(recoveryCodes: [String])
    }

    /// The step to show.
    public private(set) var step = Step.idle
    /// The app's code as typed.
    public var code = ""
    /// A request is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorBanner: String?

    @ObservationIgnored let client: ChatterClient

    /// A setup over `client`.
    public init(client: ChatterClient) { self.client = client }

    /// What the QR code encodes: the key URI's bytes, for CoreImage's `CIQRCodeGenerator` (`inputMessage`).
    public var qrPayload: Data? {
        guard case .scanning(let enrolment) = step else { return nil }
        return Data(enrolment.uri.utf8)
    }

    /// The secret in groups of four for typing by hand (apps ignore the spaces).
    public var secret: String? {
        guard case .scanning(let enrolment) = step else { return nil }
        return stride(from: 0, to: enrolment.secret.count, by: 4).map { String(enrolment.secret.dropFirst($0).prefix(4)) }.joined(separator: " ")
    }

    /// Whether confirm works: six digits typed, no request on its way.
    public var canConfirm: Bool { !isLoading && SecondFactorCodeKind(code) == .authenticator }

    /// Fetches a new key and shows it.
    public func start() async {
        await run { self.step = .scanning(try await self.client.startAuthenticatorEnrolment()) }
    }

    /// Sends the app's first code; on success the step holds the recovery codes.
    public func confirm() async {
        guard canConfirm else { return }
        await run { self.step = .enabled(recoveryCodes: try await self.client.confirmAuthenticator(code: self.code)) }
        code = ""
    }

    private func run(_ work: () async throws -> Void) async {
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do { try await work() } catch { errorBanner = ChatterError.banner(for: error) }
    }
}
