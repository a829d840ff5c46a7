import Foundation
import Observation

/// The account's authenticator app, from the account screen: `load()` reads whether it is on; adding one shows
/// the key (`qrPayload` for a QR code, `secret` to type, `keyURL` to open the authenticator on this same phone),
/// takes the app's first code and shows the ten recovery codes until the user says they saved them. Once on, new
/// recovery codes and turning it off each take a code now. An old session is asked to confirm it is you first
/// (`stepUp`).
@MainActor @Observable
public final class AuthenticatorSetup {
    /// Where the setup stands; its screen switches over it.
    public enum Step: Sendable, Equatable {
        /// Reading whether the account has one.
        case loading
        /// The account has none: offer to add one.
        case off
        /// Showing the key, waiting for the app's first code.
        case scanning(TOTPEnrolment)
        /// The recovery codes, shown this once, until `savedRecoveryCodes()`.
        case showingCodes(recoveryCodes: [String])
        /// On, with this many recovery codes left: offer new codes and turning it off.
        case on(recoveryCodesLeft: Int)
    }

    /// The step to show.
    public private(set) var step = Step.loading
    /// The app's code as typed (its first code, or one that confirms new codes or turning it off).
    public var code = ""
    /// A request is on its way.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorBanner: String?
    /// "Confirm it is you" before adding an app: present it while `stepUp.asking` is set.
    public let stepUp: StepUpPrompt

    @ObservationIgnored let client: ChatterClient

    /// A setup over `client`; `stepUp` (one of its own by default) asks for a fresh proof.
    public init(client: ChatterClient, stepUp: StepUpPrompt? = nil) {
        self.client = client
        self.stepUp = stepUp ?? StepUpPrompt(client: client)
    }

    /// What the QR code encodes: the key URI's bytes, for CoreImage's `CIQRCodeGenerator` (`inputMessage`).
    public var qrPayload: Data? { keyURI.map { Data($0.utf8) } }

    /// The key as an `otpauth://` link: opening it on this phone hands the key to the authenticator app installed
    /// here, for a user with no second device to scan from.
    public var keyURL: URL? { keyURI.flatMap(URL.init(string:)) }

    /// The secret in groups of four for typing by hand (apps ignore the spaces); selectable and copyable.
    public var secret: String? {
        guard case .scanning(let enrolment) = step else { return nil }
        return stride(from: 0, to: enrolment.secret.count, by: 4).map { String(enrolment.secret.dropFirst($0).prefix(4)) }.joined(separator: " ")
    }

    /// The recovery codes as one text, a line each, for Copy and Share.
    public var recoveryCodesText: String? {
        guard case .showingCodes(let codes) = step else { return nil }
        return (["Chatter recovery codes (each works once):"] + codes).joined(separator: "\n")
    }

    private var keyURI: String? {
        guard case .scanning(let enrolment) = step else { return nil }
        return enrolment.uri
    }

    /// Whether confirm works: six digits typed, no request on its way.
    public var canConfirm: Bool { !isLoading && SecondFactorCodeKind(code) == .authenticator }

    /// Whether "New recovery codes" and "Turn off" work: a code of either kind typed, no request on its way.
    public var canChange: Bool { !isLoading && SecondFactorCodeKind(code) != nil }

    /// Reads whether the account has an app on; call when the screen appears.
    public func load() async {
        await run { try await self.readStatus() }
    }

    /// Fetches a new key and shows it (after "confirm it is you", for a session that proved nothing lately).
    public func start() async {
        await run {
            do {
                guard try await self.stepUp.perform(.addAuthenticator, { self.step = .scanning(try await self.client.startAuthenticatorEnrolment()) })
                else { return }
            } catch ChatterError.server(409, _) {
                // On already (turned on from another device): show it as it is.
                try await self.readStatus()
            }
        }
    }

    /// Sends the app's first code; on success the step holds the recovery codes.
    public func confirm() async {
        guard canConfirm else { return }
        await run { self.step = .showingCodes(recoveryCodes: try await self.client.confirmAuthenticator(code: self.code)) }
        code = ""
    }

    /// The user saved the recovery codes: they are not shown again.
    public func savedRecoveryCodes() {
        guard case .showingCodes(let codes) = step else { return }
        step = .on(recoveryCodesLeft: codes.count)
    }

    /// A new set of recovery codes, ending the old set; `code` proves the app now.
    public func newRecoveryCodes() async {
        guard canChange else { return }
        await run { self.step = .showingCodes(recoveryCodes: try await self.client.regenerateRecoveryCodes(code: self.code)) }
        code = ""
    }

    /// Turns the app off; `code` proves it now. Sign-ins then ask for no code.
    public func turnOff() async {
        guard canChange else { return }
        await run {
            try await self.client.disableSecondFactor(code: self.code)
            self.step = .off
        }
        code = ""
    }

    /// Back from the key to the account's state: the enrolment not confirmed is left to be replaced.
    public func cancelAdding() {
        guard case .scanning = step else { return }
        step = .off
        code = ""
    }

    private func readStatus() async throws {
        let status = try await client.secondFactorStatus()
        step = status.enabled ? .on(recoveryCodesLeft: status.recoveryCodesLeft) : .off
    }

    private func run(_ work: () async throws -> Void) async {
        isLoading = true
        errorBanner = nil
        defer { isLoading = false }
        do { try await work() } catch { errorBanner = ChatterError.banner(for: error) }
    }
}
