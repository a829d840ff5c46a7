import ChatterCore
import Crypto
import ExtrasBase64
import Foundation
import JWTKit

/// Verifies OpenID Connect ID tokens locally against the provider's published keys.
///
/// The server and `chatterd check-token` both call `inspect`, so what the shell diagnoses is exactly
/// what `/adduser` decides.
public struct IDTokenVerifier: Sendable {
    public let provider: IdentityProvider
    public let keys: JWKSCache
    package let now: @Sendable () -> Date
    /// Tolerated clock skew for `nbf` and `iat`. `exp` gets none: a token whose `exp` is now is expired.
    public var leeway: Double

    /// Header parameters that would let a token choose its own key; chatterd never follows them.
    package static let forbiddenHeaders = ["jku", "x5u", "jwk", "x5c", "crit"]
    /// The longest `exp − iat` accepted. Google's and Apple's ID tokens live an hour to ten minutes; a token
    /// that claims a year (or 1e308 seconds) was not made by them, or was made to outlive a revocation.
    public var maximumLifetime: Double = 86_400
    /// Real ID tokens are about 1 KiB; this bounds the work a hostile one can cause.
    package static let maximumTokenBytes = 16 * 1024

    public init(provider: IdentityProvider, keys: JWKSCache, leeway: Double = 60, now: @escaping @Sendable () -> Date = Date.init) {
        self.provider = provider
        self.keys = keys
        self.leeway = leeway
        self.now = now
    }

    /// Verifies `token`; `clientID`, when given, must be one of the token's audiences as well as configured.
    public func verify(
        _ token: String, clientID: String? = nil, nonce: NonceExpectation = .notChecked, requireSubject: Bool = true
    ) async throws(TokenRejected) -> VerifiedIdentity {
        let report = await inspect(token, clientID: clientID, nonce: nonce, requireSubject: requireSubject, stopAtSignature: true)
        if let identity = report.identity { return identity }
        let failure = report.firstFailure ?? CheckResult(.format, .fail, "token could not be checked")
        throw TokenRejected(
            check: failure.check, reason: failure.detail, audience: report.audience, keysUnavailable: report.keysUnavailable)
    }

    /// Runs every check and reports each one, continuing past failures where a later check still means
    /// something (an expired token with a bad signature reports both). With `stopAtSignature`, as the
    /// server calls it, a token whose signature is not verified is not examined further: its claims are
    /// an attacker's bytes.
    public func inspect(
        _ token: String, clientID: String? = nil, nonce: NonceExpectation = .notChecked, requireSubject: Bool = true,
        stopAtSignature: Bool = false
    ) async -> TokenReport {
        var report = TokenReport(results: [], audience: [])
        func record(_ check: TokenCheck, _ passed: Bool, _ detail: String) {
            report.results.append(CheckResult(check, passed ? .pass : .fail, detail))
        }
        func skip(_ checks: [TokenCheck], _ detail: String) {
            for check in checks { report.results.append(CheckResult(check, .skipped, detail)) }
        }

        // Format: three base64url segments whose first two are JSON objects.
        guard token.utf8.count <= Self.maximumTokenBytes else {
            record(.format, false, "token is \(token.utf8.count) bytes; at most \(Self.maximumTokenBytes) are accepted")
            skip(Array(TokenCheck.allCases.dropFirst()), "token is malformed")
            return report
        }
        // Split on the byte, as the signature check does: splitting the `String` walked it Character by
        // Character, a sixth of a Google sign-in's instructions (BENCHMARKS.md, issue 46). A `.` that a
        // combining mark follows is one Character but still ends a segment here; such a segment is no
        // base64url, so the token fails the format check either way.
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Substring($0) }
        // fail-closed: a payload that is no JSON object or does not decode fails the format check: the token is refused
        guard segments.count == 3,
            let header = Self.jsonObject(segments[0]),
            let claimsData = Self.decodeSegment(segments[1]),
            (try? JSONSerialization.jsonObject(with: claimsData)) is [String: Any],
            let claims = try? JSONDecoder().decode(TokenClaims.self, from: claimsData)
        else {
            record(.format, false, "expected three base64url segments (header.payload.signature) with a JSON header and payload")
            skip(Array(TokenCheck.allCases.dropFirst()), "token is malformed")
            return report
        }
        record(.format, true, "header and payload decode")
        report.headerData = Self.decodeSegment(segments[0])
        report.claimsData = claimsData
        report.audience = claims.aud ?? []
        let instant = now()

        // Algorithm: from the provider's allow-list only.
        let alg = header["alg"] as? String
        let allowed = provider.algorithms.sorted().joined(separator: ", ")
        let algorithmOK = alg.map(provider.algorithms.contains) ?? false
        record(
            .algorithm, algorithmOK,
            algorithmOK ? "\(alg!) is allowed" : "alg \(alg.map { "\"\($0)\"" } ?? "missing") is not accepted for \(provider.name) (allowed: \(allowed))")

        let forbidden = Self.forbiddenHeaders.filter { header[$0] != nil }
        record(
            .header, forbidden.isEmpty,
            forbidden.isEmpty ? "no key-selecting or critical headers" : "header carries \(forbidden.joined(separator: ", ")), which chatterd refuses")

        // Key and signature.
        var keySet: JWKSCache.KeySet?
        if let kid = header["kid"] as? String, !kid.isEmpty {
            switch await keys.keys(for: kid) {
            case .found(let set):
                keySet = set
                record(.key, true, "kid \(kid) is one of \(provider.name)'s current keys")
            case .unknownKid(let known):
                record(.key, false, "kid \(kid) is not among \(provider.name)'s keys (\(known.sorted().joined(separator: ", ")))")
            case .unavailable(let why):
                report.keysUnavailable = true
                record(.key, false, "\(provider.name)'s keys are unavailable: \(why)")
            }
        } else {
            record(.key, false, "header has no kid")
        }
        if let keySet, algorithmOK, forbidden.isEmpty {
            do {
                _ = try await keySet.keys.verify(token, as: TokenClaims.self)
                record(.signature, true, "signature verifies")
            } catch {
                record(.signature, false, "signature does not verify with the key it names")
            }
        } else {
            skip([.signature], "no acceptable key to check the signature with")
        }
        if stopAtSignature, report.results.contains(where: { $0.outcome != .pass }) {
            skip(Array(TokenCheck.allCases.drop { $0 != .signature }.dropFirst()), "the signature is not verified")
            return report
        }

        // Claims.
        let issuerOK = claims.iss.map(provider.issuers.contains) ?? false
        record(
            .issuer, issuerOK,
            issuerOK ? "iss \(claims.iss!)" : "iss \(claims.iss.map { "\"\($0)\"" } ?? "missing") is not \(provider.issuers.sorted().joined(separator: " or "))"
        )

        record(.audience, audienceCheck(claims, clientID: clientID).passed, audienceCheck(claims, clientID: clientID).detail)

        if claims.malformed.contains("exp") {
            record(.expiry, false, "exp is not a number")
        } else if let exp = claims.exp {
            let left = exp - instant.timeIntervalSince1970
            record(.expiry, left > 0, left > 0 ? "expires in \(Self.whole(left)) s" : "expired \(Self.whole(-left)) s ago (exp \(Self.whole(exp)))")
        } else {
            record(.expiry, false, "exp is missing")
        }
        if claims.malformed.contains("nbf") {
            record(.notBefore, false, "nbf is not a number")
        } else if let nbf = claims.nbf {
            let early = nbf - instant.timeIntervalSince1970
            record(
                .notBefore, early <= leeway,
                early <= leeway ? "valid since nbf \(Self.whole(nbf))" : "not valid for another \(Self.whole(early)) s (nbf \(Self.whole(nbf)))")
        } else {
            record(.notBefore, true, "no nbf")
        }
        if claims.malformed.contains("iat") {
            record(.issuedAt, false, "iat is not a number")
        } else if let iat = claims.iat {
            let ahead = iat - instant.timeIntervalSince1970
            record(
                .issuedAt, ahead <= leeway,
                ahead <= leeway ? "issued at \(Self.whole(iat))" : "issued \(Self.whole(ahead)) s in the future (iat \(Self.whole(iat)))")
        } else {
            record(.issuedAt, false, "iat is missing")
        }
        if let exp = claims.exp, let iat = claims.iat {
            let lifetime = exp - iat
            record(
                .lifetime, lifetime <= maximumLifetime,
                lifetime <= maximumLifetime
                    ? "lives \(Self.whole(lifetime)) s" : "exp is \(Self.whole(lifetime)) s after iat; at most \(Self.whole(maximumLifetime)) s is accepted")
        } else {
            record(.lifetime, true, "not checked without exp and iat")
        }
        let subjectOK = !requireSubject || !(claims.sub ?? "").isEmpty
        record(.subject, subjectOK, subjectOK ? (claims.sub.map { "sub \($0)" } ?? "no sub (not required)") : "sub is missing")
        // A nonce claim that is there but no string is not "no nonce": it is refused wherever nonces are checked.
        let nonceCheck =
            claims.malformed.contains("nonce") && nonce != .notChecked
            ? (passed: false, detail: "the token's nonce is not a string") : nonceCheck(claims.nonce, nonce)
        record(.nonce, nonceCheck.passed, nonceCheck.detail)

        if report.results.allSatisfy({ $0.outcome == .pass }), claims.iss != nil {
            report.identity = VerifiedIdentity(
                issuer: provider.canonicalIssuer, subject: claims.sub ?? "", name: claims.name, email: claims.email,
                emailVerified: claims.emailVerified ?? false, nonce: claims.nonce, events: claims.events, tokenID: claims.jti,
                expiresAt: claims.exp, audience: (claims.aud ?? []).first(where: provider.audiences.contains))
        }
        return report
    }

    private func nonceCheck(_ carried: String?, _ expectation: NonceExpectation) -> (passed: Bool, detail: String) {
        guard case .raw(let raw) = expectation else { return (true, "not checked for this route") }
        switch (carried, raw) {
        case (nil, nil): return (true, "no nonce on either side")
        case (.some, nil): return (false, "the token carries a nonce but the request sent none")
        case (nil, .some): return (false, "the request sent a nonce but the token carries none")
        case (.some(let carried), .some(let raw)):
            let expected = provider.nonce == .sha256 ? Hex.encode(SHA256.hash(data: Array(raw.utf8))) : raw
            let form = provider.nonce == .sha256 ? "hex(SHA-256(raw nonce))" : "the raw nonce"
            return constantTimeEqual(Array(carried.utf8), Array(expected.utf8))
                ? (true, "nonce matches \(form)")
                : (false, "the token's nonce is not \(form)\(carried == raw ? " (it is the raw nonce itself)" : "")")
        }
    }

    private func audienceCheck(_ claims: TokenClaims, clientID: String?) -> (passed: Bool, detail: String) {
        let seen = claims.aud ?? []
        let shown = seen.isEmpty ? "no aud" : "aud \(seen.joined(separator: ", "))"
        guard !provider.audiences.isEmpty else {
            return (false, "no \(provider.name) client IDs are configured, so no token can be accepted (token has \(shown))")
        }
        let accepted = seen.filter(provider.audiences.contains)
        guard !accepted.isEmpty else {
            return (false, "token has \(shown), which is not a configured client ID")
        }
        if let clientID {
            guard seen.contains(clientID) else {
                return (false, "token has \(shown), but the request's clientID is \(clientID)")
            }
            guard provider.audiences.contains(clientID) else {
                return (false, "clientID \(clientID) is not a configured client ID")
            }
        }
        // With several audiences, OpenID Connect requires the authorized party to be one of ours.
        if seen.count > 1, !(claims.azp.map(provider.audiences.contains) ?? false) {
            return (false, "token has \(shown) and azp \(claims.azp ?? "missing"), which is not a configured client ID")
        }
        return (true, shown)
    }

    /// A token's numbers are untrusted: shown clamped to `Int`'s range, never converted with a trap.
    package static func whole(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        if value >= Double(Int.max) { return .max }
        if value <= Double(Int.min) { return .min }
        return Int(value)
    }

    package static func decodeSegment(_ segment: Substring) -> Data? {
        // fail-closed: a segment that is not base64url is nil: the format check refuses the token
        guard let bytes = try? Base64.decode(string: String(segment), options: [.base64UrlAlphabet, .omitPaddingCharacter]) else {
            return nil
        }
        return Data(bytes)
    }

    package static func jsonObject(_ segment: Substring) -> [String: Any]? {
        // fail-closed: a header that is no JSON object is nil: the format check refuses the token
        decodeSegment(segment).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    package static func prettyJSON(_ data: Data?) -> String? {
        // fail-closed: only check-token's printout is lost when JSON does not pretty-print; nothing is decided by it
        guard let data, let object = try? JSONSerialization.jsonObject(with: data),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        else { return nil }
        return String(decoding: pretty, as: UTF8.self)
    }
}
