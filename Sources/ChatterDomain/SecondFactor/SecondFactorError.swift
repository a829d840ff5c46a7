import ChatterCore

/// Why a second-factor step refused, whichever route or page asked (`SecondFactorError+HTTP`).
public enum SecondFactorError: Error, Equatable {
    /// The first factor passed; the sign-in waits for a code (`challenge`, nil where no second step can follow).
    case required(SecondFactorChallengeToken?)
    /// A code that is wrong, or of a step too far from now.
    case invalidCode
    /// The app's current code, used already (each step is taken once): wait for the next one.
    case codeUsed
    /// The waiting sign-in is unknown, expired or completed.
    case stepExpired
    /// An enrolment on an account that has a confirmed authenticator.
    case alreadyEnabled
    /// The account has no second factor, or no enrolment waiting for its first code.
    case notEnabled
    /// An action that matters, on an account with a second factor, from a session that has not passed it
    /// recently (`StepUp`).
    case stepUpRequired
    /// Adding an authenticator from a session that did not sign in within the last ten minutes.
    case signInAgain
}

/// A waiting sign-in's token, as the answer that asks for the code carries it.
public struct SecondFactorChallengeToken: Sendable, Equatable {
    public var token: String
    public var expiresIn: Int
}
