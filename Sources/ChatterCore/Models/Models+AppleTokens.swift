import Foundation

/// A refresh token Apple issued one client ID for one Apple ID, sealed (`SecretBox.sealAppleToken`): kept
/// while its account lives, to be revoked at Apple when the account goes.
public struct AppleTokenRecord: Sendable, Equatable {
    /// The Apple ID (the identity token's `sub`).
    public var subject: String
    /// The app's bundle ID or the Services ID the token was issued to.
    public var clientID: String
    /// The account holding it; nil once the account is deleted, when the token waits to be revoked.
    public var userID: UUID?
    public var sealedToken: [UInt8]
    public var keptAt: Date

    public init(subject: String, clientID: String, userID: UUID?, sealedToken: [UInt8], keptAt: Date) {
        self.subject = subject
        self.clientID = clientID
        self.userID = userID
        self.sealedToken = sealedToken
        self.keptAt = keptAt
    }
}
