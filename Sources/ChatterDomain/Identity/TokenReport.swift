import ChatterCore
import Foundation

/// The checks an ID token goes through, in the order they are reported.
/// The raw values are the `check` field of a 401 body, so clients can tell the failures apart.
public enum TokenCheck: String, Sendable, CaseIterable, Codable {
    case format = "malformed"
    case algorithm = "algorithm"
    case header = "forbidden_header"
    case key = "unknown_key"
    case signature = "bad_signature"
    case issuer = "wrong_issuer"
    case audience = "wrong_audience"
    case expiry = "expired"
    case notBefore = "not_yet_valid"
    case issuedAt = "issued_in_future"
    /// `exp` more than `IDTokenVerifier.maximumLifetime` after `iat`: no provider issues such a token.
    case lifetime = "lifetime_too_long"
    case subject = "missing_subject"
    case nonce = "nonce_mismatch"

    /// A neutral name for reports, where the check may have passed.
    public var name: String {
        switch self {
        case .format: "format"
        case .algorithm: "algorithm"
        case .header: "header"
        case .key: "key"
        case .signature: "signature"
        case .issuer: "issuer"
        case .audience: "audience"
        case .expiry: "expiry"
        case .notBefore: "not-before"
        case .issuedAt: "issued-at"
        case .lifetime: "lifetime"
        case .subject: "subject"
        case .nonce: "nonce"
        }
    }
}

/// One check's outcome. `detail` says why, in words a developer can act on.
public struct CheckResult: Sendable, Equatable {
    public enum Outcome: String, Sendable { case pass, fail, skipped }

    public var check: TokenCheck
    public var outcome: Outcome
    public var detail: String

    public init(_ check: TokenCheck, _ outcome: Outcome, _ detail: String) {
        self.check = check
        self.outcome = outcome
        self.detail = detail
    }
}

/// Who the token says the user is, once every check passed.
public struct VerifiedIdentity: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var name: String?
    public var email: String?
    public var emailVerified: Bool
    public var nonce: String?
    /// Apple's server-to-server notifications carry their event here, as JSON text.
    public var events: String?
    /// The token's own id and end, by which a processed notification is recognised when it comes again.
    public var tokenID: String? = nil
    public var expiresAt: Double? = nil
    /// The configured client ID the token was issued to (its accepted `aud`): Apple's token endpoint takes it as
    /// `client_id` when chatterd exchanges the app's authorization code.
    public var audience: String? = nil
}

/// Whether and how a sign-in's nonce is checked.
public enum NonceExpectation: Sendable, Equatable {
    /// The course API sends no nonce, so none is compared.
    case notChecked
    /// The raw nonce the app sent (or nil): checked whenever either side carries one.
    case raw(String?)
}

/// The full diagnosis of one token. The server acts on `identity`/`firstFailure`; `chatterd check-token`
/// prints everything. Both come from the same `IDTokenVerifier.inspect`.
public struct TokenReport: Sendable {
    /// The decoded header and claims (never the signature). Kept raw: only `check-token` prints them, so
    /// the server does not pay for pretty-printing on every sign-in.
    package var headerData: Data?
    package var claimsData: Data?
    public var headerJSON: String? { IDTokenVerifier.prettyJSON(headerData) }
    public var claimsJSON: String? { IDTokenVerifier.prettyJSON(claimsData) }
    public var results: [CheckResult]
    public var identity: VerifiedIdentity?
    /// The `aud` values the token carried, so a wrong-audience answer can show them.
    public var audience: [String]
    public var keysUnavailable = false

    public var firstFailure: CheckResult? { results.first { $0.outcome != .pass } }
    public var passed: Bool { identity != nil }
}

/// Thrown by `IDTokenVerifier.verify`: the first failed check and why.
public struct TokenRejected: Error, Sendable, Equatable {
    public var check: TokenCheck
    public var reason: String
    public var audience: [String]
    /// The provider's keys could not be fetched at all: not the client's fault, worth retrying.
    public var keysUnavailable: Bool
}
