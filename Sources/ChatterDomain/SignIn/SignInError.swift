import ChatterCore

/// Why a sign-in step refused, whichever method and whether the native API or a page asked. The answers
/// clients see are made from these at the edge (`SignInError+HTTP`).
public enum SignInError: Error, Equatable {
    /// The address does not parse (`EmailAddress.normalize`).
    case invalidEmail
    /// An emailed code that is wrong, expired, used up or never sent: one answer for each.
    case invalidCode
    /// An unknown account or a wrong password: one answer for both.
    case wrongCredentials
    /// A new password the rules refuse; the rule's explanation.
    case weakPassword(String)
    /// A password change whose current password is wrong.
    case wrongCurrentPassword
    /// A first password for an account that has one already: changing it takes the current one.
    case passwordExists
    /// Password hashing is at capacity; nothing was counted against the account.
    case busy
    /// A provider's ID token failed a check (or its keys could not be fetched).
    case tokenRejected(TokenRejected, provider: String)
    /// A provider notification without a readable `events` claim.
    case unreadableNotification
}
