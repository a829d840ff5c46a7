#if canImport(Security)
    import Foundation
    import Security

    /// Certificate pinning for `URLSessionTransport`: the server's certificate must pass the system's
    /// checks and its public key must hash (SHA-256 over the SubjectPublicKeyInfo, base64) to one of
    /// `pins`, the value chatterd prints at start. Pass it as the delegate of the session the transport uses.
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
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else { return (.performDefaultHandling, nil) }
            guard SecTrustEvaluateWithError(trust, nil),
                let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], let leaf = chain.first,
                let key = SecCertificateCopyKey(leaf), let pin = Self.pin(of: key), pins.contains(pin)
            else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(trust: trust))
        }

        /// SecKeyCopyExternalRepresentation gives the raw key, without the SPKI header the pin covers;
        /// the header depends only on the key type and size.
        static func pin(of key: SecKey) -> String? {
            guard let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
                let type = attributes[kSecAttrKeyType] as? String, let bits = attributes[kSecAttrKeySizeInBits] as? Int,
                let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?
            else { return nil }
            // Bound first: inside a `case`, `x as String` would be a cast pattern, not a conversion.
            let ellipticCurve = kSecAttrKeyTypeECSECPrimeRandom as String
            let rsa = kSecAttrKeyTypeRSA as String
            let header: [UInt8]
            switch (type, bits) {
            case (ellipticCurve, 256):
                header = [
                    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
                    0x03, 0x42, 0x00,
                ]
            case (ellipticCurve, 384):
                header = [
                    0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00,
                ]
            case (rsa, 2048):
                header = [
                    0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f,
                    0x00,
                ]
            default:
                return nil
            }
            return Data(SHA256Digest.hash(header + Array(raw))).base64EncodedString()
        }
    }
#endif
