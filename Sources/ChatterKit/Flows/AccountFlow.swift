import Foundation
import Observation

/// The account screen (F5): who is signed in and how, sign-out of this device or of every device, and
/// account deletion behind a confirmation.
@MainActor @Observable
public final class AccountFlow {
    /// The signed-in user, once loaded.
    public private(set) var profile: UserProfile?
    /// A request is on its way; the buttons are disabled.
    public private(set) var isLoading = false
    /// The last failure, for a banner.
    public private(set) var errorMessage: String?
    /// The deletion confirmation is showing; set by `requestDeletion()`, cleared by either answer.
    public var isConfirmingDeletion = false
    /// Signed out or deleted: the app goes back to its sign-in screen.
    public private(set) var isFinished = false

    /// "Confirm it is you" for signing out everywhere and deleting the account: present it while `stepUp.asking` is set.
    public let stepUp: StepUpPrompt

    @ObservationIgnored let client: ChatterClient

    /// An account screen over `client`'s session; `stepUp` (one of its own by default) asks for a fresh proof.
    public init(client: ChatterClient, stepUp: StepUpPrompt? = nil) {
        self.client = client
        self.stepUp = stepUp ?? StepUpPrompt(client: client)
    }

    /// Fetches the profile; call when the screen appears.
    public func load() async {
        await run { self.profile = try await self.client.me() }
    }

    /// The sign-in methods linked to the account, for a person: "Google, Password".
    public var methodsDescription: String {
        let names = ["google": "Google", "apple": "Apple", "email": "Email code", "password": "Password", "passkey": "Passkey"]
        return (profile?.methods ?? []).map { names[$0] ?? $0.capitalized }.joined(separator: ", ")
    }

    /// Whether the buttons work.
    public var canAct: Bool { !isLoading && !isFinished }

    /// Signs this device out. The session is deleted here even when the server cannot be told.
    public func signOut() async {
        await run {
            try await self.client.sessions.signOut()
            self.isFinished = true
        }
    }

    /// Signs every device out. When the server cannot be told this device stays signed in, so the user
    /// can try again: the other devices are what this is for.
    public func signOutEverywhere() async {
        await run {
            // A session that proved nothing lately is asked to confirm it first; a cancel changes nothing.
            if try await self.stepUp.perform(.signOutEverywhere, { try await self.client.sessions.signOut(all: true) }) { self.isFinished = true }
        }
    }

    /// Asks for confirmation before deleting.
    public func requestDeletion() {
        isConfirmingDeletion = true
    }

    /// The user confirmed: deletes the account on the server, then here.
    public func confirmDeletion() async {
        isConfirmingDeletion = false
        await run {
            if try await self.stepUp.perform(.deleteAccount, { try await self.client.deleteAccount() }) { self.isFinished = true }
        }
    }

    private func run(_ work: () async throws -> Void) async {
        guard canAct else { return }
        isLoading = true
        errorMessage = nil
        defer { isLoading = false }
        do {
            try await work()
        } catch ChatterError.signedOut {
            // The server had already ended the session: the app is signed out either way.
            isFinished = true
        } catch {
            errorMessage = ChatterError.banner(for: error)
        }
    }
}
