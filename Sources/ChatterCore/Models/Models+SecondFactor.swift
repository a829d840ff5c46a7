import Foundation

/// An account's authenticator app, as the store keeps it.
public struct TOTPRecord: Sendable, Equatable {
    /// The secret, sealed (`SecretBox`): the store never sees it in the clear.
    public var sealedSecret: [UInt8]
    /// nil while the enrolment waits for its first code: until then the account has no second factor.
    public var confirmedAt: Date?
    /// The last time step a code was accepted for; a code of that step or an earlier one is refused.
    public var lastStep: Int64
    /// Recovery codes not yet used.
    public var recoveryCodesLeft: Int

    public init(sealedSecret: [UInt8], confirmedAt: Date?, lastStep: Int64, recoveryCodesLeft: Int) {
        self.sealedSecret = sealedSecret
        self.confirmedAt = confirmedAt
        self.lastStep = lastStep
        self.recoveryCodesLeft = recoveryCodesLeft
    }
}

/// One guess at an authenticator, counted (`SecondFactorRepository.takeGuess`): what it is compared with,
/// and the account's guesses so far in the window and the day, this one included.
public struct TOTPGuess: Sendable, Equatable {
    public var sealedSecret: [UInt8]
    public var lastStep: Int64
    public var guesses: Int
    public var dayGuesses: Int

    public init(sealedSecret: [UInt8], lastStep: Int64, guesses: Int, dayGuesses: Int) {
        self.sealedSecret = sealedSecret
        self.lastStep = lastStep
        self.guesses = guesses
        self.dayGuesses = dayGuesses
    }
}

/// A sign-in whose first factor passed, waiting for its second: kept by its token's hash until a code
/// completes it (once) or it expires.
public struct PendingSecondStep: Sendable, Equatable {
    public var hash: [UInt8]
    public var userID: UUID
    /// The first factor's `SignInMethod`.
    public var method: String
    /// The address the first factor proved, for the device token the session will come with.
    public var email: String?
    public var expiresAt: Date
    /// A password the first factor (an emailed code) asked to set, as its hash: set only when the second
    /// step completes, so a mailbox alone changes nothing on an account with a second factor.
    public var newPasswordHash: String?

    public init(hash: [UInt8], userID: UUID, method: String, email: String?, expiresAt: Date, newPasswordHash: String? = nil) {
        self.hash = hash
        self.userID = userID
        self.method = method
        self.email = email
        self.expiresAt = expiresAt
        self.newPasswordHash = newPasswordHash
    }
}

/// See `SecondFactorRepository.sessionTimes(sessionID:)`.
public struct SessionTimes: Sendable, Equatable {
    public var createdAt: Date
    public var secondFactorAt: Date?

    public init(createdAt: Date, secondFactorAt: Date?) {
        self.createdAt = createdAt
        self.secondFactorAt = secondFactorAt
    }
}

/// The factor that made a session two-factor, kept with it and shown in session lists and the audit.
public enum SecondFactorKind: String, Sendable, CaseIterable {
    /// A code from the authenticator app.
    case totp
    /// One of the account's recovery codes.
    case recoveryCode = "recovery_code"
    /// A passkey with user verification: something held and something known or are, in one gesture.
    case passkey
    /// A device that passed the second step before and asked to be remembered (its device token).
    case rememberedDevice = "remembered_device"

    /// Whether it was proven at that moment, so that it counts for a step-up; a remembered device's is older.
    package var isFresh: Bool { self != .rememberedDevice }
}
