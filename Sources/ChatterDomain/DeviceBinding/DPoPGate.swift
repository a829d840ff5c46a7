import ChatterCore
import Crypto
import Foundation

/// Checks the DPoP proofs (RFC 9449) requests carry: the proof itself (`DPoPVerifier`), then its single use,
/// recorded in the database so that no instance accepts it twice.
public struct DPoPGate: Sendable {
    let verifier: DPoPVerifier
    let proofs: any DPoPProofRepository
    /// Whether the operator requires proofs on the native API (`--require-dpop`): sign-ins and refreshes
    /// without one are refused, and unbound sessions' tokens too until a refresh with a proof binds them.
    public let required: Bool
    let now: @Sendable () -> Date

    public init(verifier: DPoPVerifier, proofs: any DPoPProofRepository, required: Bool, now: @escaping @Sendable () -> Date) {
        self.verifier = verifier
        self.proofs = proofs
        self.required = required
        self.now = now
    }

    /// The current server nonce, when the operator asks for them: every answer to a request with a proof
    /// carries it, so a client always has one.
    public var nonce: String? {
        verifier.nonces?.current(at: now())
    }

    /// The proof `header` carries, checked against its request and used up.
    public func check(_ header: String, for target: DPoPTarget, accessToken: String?) async throws -> DPoPProof {
        let instant = now()
        let proof = try verifier.verify(header, for: target, accessToken: accessToken, at: instant)
        // One hash of key and jti: RFC 9449 asks that a jti be unique per key, and the row stays one size.
        let key = Array(SHA256.hash(data: Array("\(proof.thumbprint)\n\(proof.jti)".utf8)))
        guard try await proofs.useProof(key, until: verifier.keepUntil(proof), at: instant) else {
            throw DPoPError.rejected(.replayed, "this proof was used before; make a new one for each request")
        }
        return proof
    }
}
