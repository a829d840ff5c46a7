import ChatterCore

/// Why a passkey step refused. The answers clients see are made from these at the edge (`PasskeyError+HTTP`).
public enum PasskeyError: Error, Equatable {
    /// The response failed a WebAuthn check; which one and why.
    case rejected(PasskeyRejected)
    /// The response's challenge was not issued, was issued for another ceremony or account, expired, or was used.
    case invalidChallenge
    /// No account has this passkey (or the user handle it names is not its account's).
    case unknownPasskey
    /// The credential ID is registered already.
    case exists
    /// Deleting it would leave the account no way to sign in.
    case lastWayToSignIn
    /// The account has no passkey with this ID.
    case notFound
    /// A passkey name that is empty or longer than `PasskeyService.maximumNameLength` characters.
    case invalidName
}
