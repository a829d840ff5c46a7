import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import HTTPTypes
import Hummingbird

extension DPoPError: APIErrorConvertible {
    /// RFC 9449's answers: 401 with a `DPoP` challenge where a token was presented (§7.1), 400 at the routes
    /// that issue tokens (§5). `DPoPMiddleware` makes `presentsToken`'s answer; elsewhere (a refresh by the
    /// wrong key) the token-issuing form applies.
    var apiError: APIError { apiError(presentsToken: false) }

    func apiError(presentsToken: Bool) -> APIError {
        let error: APIError
        switch self {
        case .rejected(let check, let reason):
            error = APIError(presentsToken ? .unauthorized : .badRequest, .invalidDPoPProof, "The DPoP proof was refused: \(reason).", check: check.rawValue)
        case .nonce(let fresh):
            return APIError(presentsToken ? .unauthorized : .badRequest, .useDPoPNonce, "Make a new DPoP proof with the server's nonce.")
                .with(.dpopNonce, fresh).challenge(presentsToken, "use_dpop_nonce")
        case .boundToAnotherKey:
            error = APIError(
                presentsToken ? .unauthorized : .badRequest, .invalidDPoPProof,
                "This session is bound to a key: send its token as Authorization: DPoP with a proof made by that key.", check: "session_key")
        case .required:
            error = APIError(
                presentsToken ? .unauthorized : .badRequest, .invalidDPoPProof, "This server requires a DPoP proof (RFC 9449) with each request.",
                check: "required")
        }
        return error.challenge(presentsToken, "invalid_dpop_proof")
    }
}

extension APIError {
    /// The `WWW-Authenticate` challenge RFC 9449 §7.1 gives a refused token, naming the one algorithm accepted.
    fileprivate func challenge(_ presentsToken: Bool, _ code: String) -> APIError {
        presentsToken ? with(.wwwAuthenticate, "DPoP error=\"\(code)\", algs=\"ES256\"") : self
    }
}

extension HTTPField.Name {
    /// RFC 9449 §8.
    static let dpop = HTTPField.Name("DPoP")!
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
