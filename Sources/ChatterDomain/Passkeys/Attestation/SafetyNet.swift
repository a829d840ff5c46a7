import ChatterCore
import Crypto
import Foundation
import X509

/// `android-safetynet` (WebAuthn §8.5): a SafetyNet attestation JWS from Google Play services whose nonce
/// is the hash of authenticator data and client data hash. Google has retired SafetyNet; older Android
/// devices may still send it.
package enum SafetyNet {
    /// §8.5 leaves the freshness window to the RP; a minute either way, as the ID tokens' leeway.
    package static let window: Double = 60

    package static func verify(_ object: AttestationObject, signed: [UInt8], at now: Date) throws -> AttestationStatement.Verified {
        typealias S = AttestationStatement
        guard let version = object.statement["ver"]?.text, !version.isEmpty else { throw S.Failure("no ver text") }
        guard let response = object.statement["response"]?.bytes, let jws = String(validating: response, as: UTF8.self) else {
            throw S.Failure("no response byte string holding a JWS")
        }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        // fail-closed: a JWS header or payload that does not decode throws: the attestation statement is refused
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])), let payloadBytes = Base64URL.decode(String(parts[1])),
            let signature = Base64URL.decode(String(parts[2])),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let payload = try? JSONDecoder().decode(Payload.self, from: Data(payloadBytes))
        else { throw S.Failure("the response is not a compact JWS with JSON header and payload") }
        guard let algorithm = [("RS256", COSEAlgorithm.rs256), ("ES256", .es256)].first(where: { $0.0 == header.alg })?.1 else {
            throw S.Failure("JWS alg \(header.alg.debugDescription) is neither RS256 nor ES256")
        }
        guard (1...8).contains(header.x5c.count) else { throw S.Failure("the JWS header carries \(header.x5c.count) certificates") }
        let chain = try header.x5c.map { text in
            guard let der = Data(base64Encoded: text) else { throw S.Failure("an x5c entry is not base64") }
            do { return try Certificate(derEncoded: Array(der)) } catch { throw S.Failure("an x5c certificate does not parse: \(error)") }
        }
        guard hostnames(chain[0]).contains("attest.android.com") else { throw S.Failure("the JWS is not signed by attest.android.com") }
        var jwsSignature = signature
        if algorithm == .es256 {
            // fail-closed: an ES256 signature that is not 64 raw bytes throws: the attestation statement is refused
            guard let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { throw S.Failure("an ES256 JWS signature is 64 bytes") }
            jwsSignature = Array(raw.derRepresentation)
        }
        try S.verify(jwsSignature, over: Array(jws.utf8[..<parts[1].endIndex]), by: chain[0], algorithm: algorithm)
        guard payload.nonce == Data(SHA256.hash(data: signed)).base64EncodedString() else {
            throw S.Failure("the JWS nonce is not the hash of authenticator data and client data hash")
        }
        guard payload.ctsProfileMatch else { throw S.Failure("ctsProfileMatch is false: the device failed SafetyNet's compatibility check") }
        let issued = payload.timestampMs / 1000
        guard abs(issued - now.timeIntervalSince1970) <= window else {
            throw S.Failure("issued at \(Int(issued)), more than \(Int(window)) s from the time checked (\(Int(now.timeIntervalSince1970)))")
        }
        return S.Verified(format: .androidSafetyNet, kind: .basic, chain: chain)
    }

    package struct Header: Decodable {
        package var alg: String
        package var x5c: [String]
    }

    package struct Payload: Decodable {
        package var nonce: String
        package var timestampMs: Double
        package var ctsProfileMatch: Bool
    }

    package static func hostnames(_ certificate: Certificate) -> [String] {
        // fail-closed: a SAN that does not parse gives no DNS names; fewer names can only fail the attest.android.com check
        let names = ((try? certificate.extensions.subjectAlternativeNames) ?? nil).map { Array($0) } ?? []
        let dns = names.compactMap { name -> String? in
            if case .dnsName(let host) = name { return host }
            return nil
        }
        return dns + [AttestationStatement.subject(certificate, .RDNAttributeType.commonName)].compactMap { $0 }
    }
}
