/// Every `error` code chatterd answers with (`ErrorBody.error`): the one catalog chatterd writes from and
/// clients branch on. Codes are stable; a new one is added here before anything answers it.
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
    // Sessions and tokens (401s decide what a client does next: see `AuthErrorCode`).
    /// No credentials were sent to a route that needs a session.
    case authenticationRequired = "authentication_required"
    /// The access token has expired: refresh, then retry.
    case accessTokenExpired = "access_token_expired"
    /// The access token is unknown or revoked: the session is gone.
    case invalidAccessToken = "invalid_access_token"
    /// Refresh failed for good (unknown, expired, revoked or reused token): sign in again.
    case invalidRefreshToken = "invalid_refresh_token"
    /// A retired refresh token was presented again; the whole session has been revoked.
    case refreshTokenReused = "refresh_token_reused"
    /// A course chatterID that is unknown, or whose account no longer exists.
    case invalidSession = "invalid_session"
    /// A course chatterID past its lifetime.
    case expiredSession = "expired_session"
    /// A web-session hand-off link that is expired or used.
    case invalidHandoff = "invalid_handoff"
    /// `GET …/web-session/csrf` from a client that is not signed in with a cookie.
    case noCookieSession = "no_cookie_session"
    /// A cookie-authenticated change or a web form without this browser's CSRF token for its action.
    case csrfFailed = "csrf_failed"
    /// A `DPoP` proof (RFC 9449) that failed a check (`ErrorBody.check` names it), or none where one is needed:
    /// a session bound to a key presents its tokens only with a fresh proof by that key, and an operator may
    /// require proofs on the whole native API.
    case invalidDPoPProof = "invalid_dpop_proof"
    /// The proof lacked the server's current nonce: retry with a new proof carrying the `DPoP-Nonce` header's value.
    case useDPoPNonce = "use_dpop_nonce"
    /// An App Attest attestation or assertion that failed a check (`ErrorBody.check` names it: `challenge`, `format`,
    /// `chain`, `nonce`, `key_id`, `app_id`, `counter`, `environment`, `credential_id`, `signature`, or `attested` for a
    /// key attested before).
    case invalidAppAttest = "invalid_app_attest"
    /// The operator creates accounts only for installs of its apps that App Attest vouches for
    /// (`--app-attest-sign-up`): sign up in the app, which sends an `App-Attest-Assertion`. Existing accounts sign in as
    /// before.
    case appAttestRequired = "app_attest_required"

    // Signing in.
    /// A provider's ID token failed a check (`ErrorBody.check` names it).
    case invalidToken = "invalid_token"
    /// The provider's signing keys could not be fetched.
    case keysUnavailable = "keys_unavailable"
    /// The address is not an email address.
    case invalidEmail = "invalid_email"
    /// An emailed code that is wrong, expired, used up or never sent (one answer for each).
    case invalidCode = "invalid_code"
    /// An unknown account or a wrong password (one answer for both).
    case invalidCredentials = "invalid_credentials"
    /// A new password the server's rules refuse; the message says which rule.
    case weakPassword = "weak_password"
    /// A password change whose current password is wrong.
    case wrongPassword = "wrong_password"
    /// A first password for an account that has one: change it with the current one instead.
    case passwordExists = "password_exists"
    /// An operator disabled the account.
    case accountDisabled = "account_disabled"
    /// Password hashing is at capacity: retry after `Retry-After`.
    case busy
    /// A limit was reached: retry after `Retry-After` seconds.
    case rateLimited = "rate_limited"
    /// A passkey ceremony failed a check (`ErrorBody.check` names it: `challenge_mismatch`, `wrong_origin`, …).
    case passkeyRejected = "passkey_rejected"
    /// A passkey response whose challenge this server did not issue, or issued for another ceremony, or that
    /// expired or was used: ask for new options.
    case passkeyChallengeInvalid = "passkey_challenge_invalid"
    /// A passkey this server does not know (deleted, or registered elsewhere).
    case unknownPasskey = "unknown_passkey"
    /// A passkey already registered (to this or another account).
    case passkeyExists = "passkey_exists"
    /// Removing it would leave the account with no way to sign in.
    case lastWayToSignIn = "last_way_to_sign_in"
    /// The first factor passed and the account has a second: send a code with `ErrorBody.secondFactor`'s token to
    /// `NativePath.secondStep` (or, where no second step can follow, sign in with the app or the pages).
    case secondFactorRequired = "second_factor_required"
    /// A second-factor code that is wrong, already used, or from a step too far from now (one answer for each).
    case invalidSecondFactor = "invalid_second_factor"
    /// A second step whose waiting sign-in is unknown, expired or completed: sign in again.
    case secondStepExpired = "second_step_expired"
    /// Adding an authenticator app to an account that has one: turn it off first.
    case secondFactorExists = "second_factor_exists"
    /// Confirming, using or turning off a second factor the account does not have (or an enrolment not started).
    case noSecondFactor = "no_second_factor"
    /// An action that matters (deleting the account, changing the password, signing out everywhere, adding a
    /// passkey, an operator's action) on an account with a second factor, from a session that has not passed it
    /// in the last ten minutes: send a code to `NativePath.stepUp`, then retry.
    case stepUpRequired = "step_up_required"
    /// Adding an authenticator app from a session that did not sign in within the last ten minutes: sign in
    /// again, then add it.
    case signInAgain = "sign_in_again"

    // Requests.
    /// The JSON body is malformed or misses a field; the message names it.
    case invalidBody = "invalid_body"
    /// A web form that is incomplete.
    case invalidForm = "invalid_form"
    /// A name or message over its limit in characters.
    case fieldTooLong = "field_too_long"
    /// A request body over 64 KiB (`Limits.bodyBytes`).
    case bodyTooLarge = "body_too_large"
    /// A page post with nothing but white space.
    case emptyMessage = "empty_message"
    /// A page size outside what `GET /v1/chatts` allows.
    case invalidLimit = "invalid_limit"
    /// A `before` that is not a chatt id.
    case invalidCursor = "invalid_cursor"
    /// `POST /postchatt` while the server does not allow anonymous posts.
    case anonymousPostingDisabled = "anonymous_posting_disabled"
    /// No such route, file, session or account.
    case notFound = "not_found"
    /// A request Hummingbird itself refused as malformed (a bad URL-encoded form, a bad header).
    case badRequest = "bad_request"
    /// The admin pages, for an account that is not an operator's.
    case notAnOperator = "not_an_operator"
    /// An operator acting on their own account from the admin pages.
    case ownAccount = "own_account"
    /// chatterd failed; the error is in its log, never in the answer.
    case internalError = "internal"
}

extension ErrorBody {
    /// `error` as a catalog code; nil for a code this client does not know (a newer server).
    public var code: ErrorCode? { ErrorCode(rawValue: error) }
}
