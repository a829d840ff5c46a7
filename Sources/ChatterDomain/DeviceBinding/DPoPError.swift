import ChatterCore

/// Why a request's DPoP proof (RFC 9449) was refused. The edge answers RFC 9449's codes from it
/// (`DPoPError+HTTP`): `use_dpop_nonce` for `.nonce`, `invalid_dpop_proof` for the rest, naming the check.
public enum DPoPError: Error, Equatable, Sendable {
    /// The proof failed one check; `check` names it for the client and the operator.
    case rejected(DPoPCheck, String)
    /// The proof lacked the server's current nonce, or carried a stale one: retry with `fresh`.
    case nonce(fresh: String)
    /// A bound session's token came without a proof, with a proof by another key, or as a bearer token.
    case boundToAnotherKey
    /// The operator requires DPoP on the native API and this request carried no proof.
    case required
}

/// The checks of RFC 9449 §4.3, one name each, as `ErrorBody.check` carries them.
public enum DPoPCheck: String, Sendable, CaseIterable {
    case malformed
    case type
    case algorithm
    case key
    case signature
    case method
    case url
    case issuedAt = "issued_at"
    case replayed
    case accessTokenHash = "access_token_hash"
}
