#if canImport(Security)
    import Foundation
    import Security

    /// Certificate pinning for `URLSessionTransport`: the server's certificate must pass the system's
    /// checks and its public key must hash (SHA-256 over the SubjectPublicKeyInfo, base64) to one of
    /// `pins`, the value chatterd prints at start. Pass it as the delegate of the session the transport uses.
    /// `WebSignIn` finds these pins on the client's transport, and ChatterUI's web view checks them too.
    public final class PinnedSessionDelegate: NSObject, URLSessionDelegate, Sendable {
        /// The keys accepted: each the base64 SHA-256 of a SubjectPublicKeyInfo, as chatterd prints it at start. Add
        /// the next key's pin before the server changes keys. Only P-256, P-384 and RSA-2048 keys can match.
        public let pins: Set<String>

        /// A delegate that accepts only servers whose key hashes to one of `pins`.
        public init(pins: Set<String>) {
            self.pins = pins
        }

        /// Accepts the server only when the system trusts its certificate and the key of its leaf matches a pin, and
        /// cancels the connection otherwise. Other challenges get the default handling.
        public func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge
        ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
            Self.disposition(for: challenge, pins: pins)
        }

        /// The answer to `challenge` under `pins`, for any delegate that meets server-trust challenges (this one, and
        /// the navigation delegate of ChatterUI's web view): a server-trust challenge is answered with the server's
        /// trust only when the system trusts its certificate and the key of its leaf hashes to one of `pins`, and
        /// cancelled otherwise; every other challenge gets the default handling.
        public static func disposition(
            for challenge: URLAuthenticationChallenge, pins: Set<String>
        ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else { return (.performDefaultHandling, nil) }
            guard SecTrustEvaluateWithError(trust, nil),
                let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], let leaf = chain.first,
                let key = SecCertificateCopyKey(leaf), accepts(key, pins: pins)
            else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(trust: trust))
        }

        /// Whether `key` hashes to one of `pins`: Security names its type and size and gives the raw key;
        /// `ServerKeyPin` does the rest.
        static func accepts(_ key: SecKey, pins: Set<String>) -> Bool {
            guard let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
                let typeName = attributes[kSecAttrKeyType] as? String, let bits = attributes[kSecAttrKeySizeInBits] as? Int,
                let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?
            else { return false }
            // Bound first: inside a `case`, `x as String` would be a cast pattern, not a conversion.
            let ellipticCurve = kSecAttrKeyTypeECSECPrimeRandom as String
            let rsa = kSecAttrKeyTypeRSA as String
            let type: ServerKeyPin.KeyType
            switch typeName {
            case ellipticCurve: type = .ellipticCurve
            case rsa: type = .rsa
            default: return false
            }
            return ServerKeyPin.accepts(type: type, bits: bits, rawKey: Array(raw), pins: pins)
        }
    }
#endif
