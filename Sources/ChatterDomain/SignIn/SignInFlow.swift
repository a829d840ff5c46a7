import ChatterCore
import ChatterWire
import Foundation

/// A sign-in in progress: the account, what has been proven and how, and the device it came from. Every way
/// in makes one (Google, Apple, an emailed code, a password, a passkey, the web hand-off, `/adduser`) from
/// what it checked, and `SignInService` ends it, in one place, for the surface that asked (`native`,
/// `browser`, `course`): it asks for the second factor when due, re-reads the account's state, starts the
/// session, audits it, and gives the device its token. Waiting states live server-side, never in what a
/// client can edit: a second step is a row keyed by the hash of its token (`second_steps`), holding the
/// account, the method, the address proven and a password waiting to be set.
package struct SignInFlow: Sendable {
    package var user: User
    package var method: SignInMethod
    /// The address this sign-in proved (an emailed code, a password for an address, a passkey sign-up's
    /// code): the device token is for it, and only for it.
    package var email: String? = nil
    /// The device's token for `email`, as it presented it: kept, and it may say the device is remembered.
    package var device: String? = nil
    /// What it passed besides its method: a passkey's user verification, a second step's code.
    package var secondFactor: SecondFactorKind? = nil
    /// The account as the proof read it already (a passkey's), so it is not read again.
    package var account: AccountSummary? = nil
    /// A second step asked to remember the device.
    package var rememberDevice = false

    /// Memberwise, for the other layers (a struct's own is internal).
    package init(
        user: User, method: SignInMethod, email: String? = nil, device: String? = nil, secondFactor: SecondFactorKind? = nil, account: AccountSummary? = nil,
        rememberDevice: Bool = false
    ) {
        self.user = user
        self.method = method
        self.email = email
        self.device = device
        self.secondFactor = secondFactor
        self.account = account
        self.rememberDevice = rememberDevice
    }
}
