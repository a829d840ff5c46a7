import Foundation

/// An account. Identities from providers point at it; it is never found by email alone.
public struct User: Sendable, Equatable {
    public var id: UUID
    public var displayName: String
}

/// A provider's account, keyed by (issuer, subject) as OpenID Connect requires.
public struct IdentityKey: Sendable, Hashable {
    public var issuer: String
    public var subject: String

    public init(issuer: String, subject: String) {
        self.issuer = issuer
        self.subject = subject
    }
}

/// A live session as the request handlers see it.
public struct AuthenticatedSession: Sendable, Equatable {
    public var sessionID: UUID
    public var user: User
    public var expiresAt: Date
}

public enum SessionLookup: Sendable, Equatable {
    case valid(AuthenticatedSession)
    /// Known but past its lifetime; the row has been purged.
    case expired
    case unknown
}

public struct Chatt: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var message: String
    public var time: Date
    public var userID: UUID?

    public init(id: UUID = UUID(), name: String, message: String, time: Date, userID: UUID?) {
        self.id = id
        self.name = name
        self.message = message
        self.time = time
        self.userID = userID
    }
}
