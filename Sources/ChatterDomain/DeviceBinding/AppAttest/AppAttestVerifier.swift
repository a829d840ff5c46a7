import ChatterCore
import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// A key App Attest vouched for: the key ID the app names it by, its public key, and the environment.
public struct AttestedKey: Sendable, Equatable {
    public var keyID: [UInt8]
    /// The uncompressed P-256 point (X9.63): what an assertion is verified with.
    public var publicKey: [UInt8]
    public var environment: AppAttestEnvironment
    /// Apple's receipt, for the fraud-metric service (not read here).
    public var receipt: [UInt8]
}

/// The environment an attestation names by its AAGUID.
public enum AppAttestEnvironment: String, Sendable {
    case development, production

    package var aaguid: [UInt8] {
        switch self {
        case .development: Array("appattestdevelop".utf8)
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        }
    }
}

/// Verifies App Attest attestations and assertions (DCAppAttestService), as Apple's "Validating apps that
/// connect to your server" lists the steps; every step is a check of the report, so a refusal says which
/// failed. Nothing is stored here: the caller keeps the key and its counter.
public struct AppAttestVerifier: Sendable {
    /// Attestation objects are about 5 KB (two certificates and a receipt); more is not one.
    public static let maximumBytes = 16 * 1024
    let root: Certificate
    let now: @Sendable () -> Date

    public init(root: Certificate = TrustAnchors.appleAppAttestationRoot, now: @escaping @Sendable () -> Date = Date.init) {
        self.root = root
        self.now = now
    }

    /// The checks of an attestation of `keyID` by the app `appID` (`TEAMID.bundle.id`) over `clientDataHash`
    /// (SHA-256 of the client data, which holds the server's one-time challenge).
    public func inspectAttestation(
        _ object: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], appID: String, environment: AppAttestEnvironment
    ) async -> AppAttestReport<AttestedKey> {
        var report = AppAttestReport<AttestedKey>()
        guard object.count <= Self.maximumBytes else {
            report.record(.format, false, "\(object.count) bytes (at most \(Self.maximumBytes))")
            return report
        }
        let parsed: (chain: [Certificate], receipt: [UInt8], authData: AppAttestAuthenticatorData)
        do {
            parsed = try Self.attestation(object)
        } catch {
            report.record(.format, false, "\(error)")
            return report
        }
        report.record(.format, true, "apple-appattest, two certificates, \(parsed.authData.bytes.count) bytes of authenticator data")
        let (leaf, intermediate) = (parsed.chain[0], parsed.chain[1])
        let at = now()
        var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy(fixedExpiryValidationTime: at) }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate])) {
        case .validCertificate:
            report.record(.chain, true, "to Apple App Attestation Root CA at \(at.formatted(.iso8601))")
        case .couldNotValidate(let failures):
            report.record(
                .chain, false,
                "not to Apple App Attestation Root CA at \(at.formatted(.iso8601)): \(failures.first.map { "\($0.policyFailureReason)" } ?? "no path")")
        }
        let expected = Array(SHA256.hash(data: parsed.authData.bytes + clientDataHash))
        // fail-closed: a nonce extension that is absent or does not parse is nil, never the expected hash
        let nonce = leaf.extensions[oid: AppleAnonymous.nonceExtension].flatMap { try? AppleAnonymous.nonce(in: $0.value) }
        report.record(
            .nonce, nonce == expected,
            nonce == nil
                ? "the certificate has no nonce extension (1.2.840.113635.100.8.2)"
                : nonce == expected
                    ? "SHA-256 of authenticator data and client data hash" : "the certificate's nonce is not SHA-256 of authenticator data and client data hash"
        )
        // fail-closed: a leaf key that is not P-256 is nil, and refused as the wrong key
        let point = P256.Signing.PublicKey(leaf.publicKey).map { Array($0.x963Representation) }
        let keyHash = point.map { Array(SHA256.hash(data: $0)) }
        report.record(
            .keyID, keyHash.map { constantTimeEqual($0, keyID) } ?? false,
            keyHash == nil ? "the certificate's key is not P-256" : "SHA-256 of the certificate's key is\(keyHash == keyID ? "" : " not") the key ID")
        let appHash = Self.rpIDHash(appID)
        report.record(.appID, parsed.authData.rpIDHash == appHash, "the RP ID hash is\(parsed.authData.rpIDHash == appHash ? "" : " not") SHA-256 of \(appID)")
        report.record(.counter, parsed.authData.counter == 0, "the counter is \(parsed.authData.counter)\(parsed.authData.counter == 0 ? "" : " (0 expected)")")
        let named: AppAttestEnvironment? = [AppAttestEnvironment.development, .production].first { $0.aaguid == parsed.authData.aaguid }
        report.record(
            .environment, named == environment,
            "the AAGUID names \(named?.rawValue ?? "no environment")\(named == environment ? "" : ", \(environment.rawValue) expected")")
        report.record(
            .credentialID, parsed.authData.credentialID == keyID, "the credential ID is\(parsed.authData.credentialID == keyID ? "" : " not") the key ID")
        if report.firstFailure == nil, let point {
            report.verified = AttestedKey(keyID: keyID, publicKey: point, environment: environment, receipt: parsed.receipt)
        }
        return report
    }

    /// The checks of an assertion by the key `publicKey` (X9.63, as `AttestedKey` holds it) over
    /// `clientDataHash`; `previousCounter` is the highest the key has shown. Verified: the new counter.
    public func inspectAssertion(_ assertion: [UInt8], clientDataHash: [UInt8], publicKey: [UInt8], appID: String, previousCounter: UInt32)
        -> AppAttestReport<UInt32>
    {
        var report = AppAttestReport<UInt32>()
        let signature: [UInt8]
        let authData: AppAttestAuthenticatorData
        do {
            guard assertion.count <= 4096 else { throw AppAttestAuthenticatorData.Failure(description: "\(assertion.count) bytes (at most 4096)") }
            let map = try CBORDecoder.decodeWhole(assertion)
            guard let sig = map["signature"]?.bytes, let data = map["authenticatorData"]?.bytes, map.entries?.count == 2 else {
                throw AppAttestAuthenticatorData.Failure(description: "not a map of signature and authenticatorData")
            }
            signature = sig
            authData = try AppAttestAuthenticatorData(data, attested: false)
        } catch {
            report.record(.format, false, "\(error)")
            return report
        }
        report.record(.format, true, "signature and \(authData.bytes.count) bytes of authenticator data")
        let nonce = Array(SHA256.hash(data: authData.bytes + clientDataHash))
        // fail-closed: a key or signature that does not parse is nil, and the signature check fails
        let key = try? P256.Signing.PublicKey(x963Representation: publicKey)
        let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature)
        let valid = key.flatMap { key in ecdsa.map { key.isValidSignature($0, for: nonce) } } ?? false
        report.record(
            .signature, valid,
            key == nil
                ? "the public key is not a P-256 point"
                : ecdsa == nil
                    ? "the signature is not DER ECDSA"
                    : valid ? "by the attested key over SHA-256 of authenticator data and client data hash" : "does not verify with the attested key")
        let appHash = Self.rpIDHash(appID)
        report.record(.appID, authData.rpIDHash == appHash, "the RP ID hash is\(authData.rpIDHash == appHash ? "" : " not") SHA-256 of \(appID)")
        report.record(
            .counter, authData.counter > previousCounter,
            "the counter is \(authData.counter)\(authData.counter > previousCounter ? "" : ", not above \(previousCounter)")")
        if report.firstFailure == nil { report.verified = authData.counter }
        return report
    }

    /// What an app's authenticator data names it by: SHA-256 of `TEAMID.bundle.id`.
    package static func rpIDHash(_ appID: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(appID.utf8)))
    }

    /// SHA-256 of the client data: what an attestation's nonce and an assertion's signature cover.
    public static func clientDataHash(_ clientData: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: clientData))
    }

    /// The X9.63 point of a P-256 public key given as PEM, or base64 of its DER or of the point itself.
    public static func publicKeyPoint(_ text: String) -> [UInt8]? {
        // fail-closed: a key in none of the forms is nil, which the caller refuses
        if text.contains("-----BEGIN") { return (try? P256.Signing.PublicKey(pemRepresentation: text)).map { Array($0.x963Representation) } }
        guard let raw = Base64URL.decodeAnySpelling(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        // fail-closed: bytes that are neither a point nor DER are nil
        let key = (try? P256.Signing.PublicKey(x963Representation: raw)) ?? (try? P256.Signing.PublicKey(derRepresentation: raw))
        return key.map { Array($0.x963Representation) }
    }

    /// `{ fmt: "apple-appattest", attStmt: { x5c: [leaf, intermediate], receipt }, authData }`.
    static func attestation(_ object: [UInt8]) throws -> (chain: [Certificate], receipt: [UInt8], authData: AppAttestAuthenticatorData) {
        typealias Failure = AppAttestAuthenticatorData.Failure
        let map = try CBORDecoder.decodeWhole(object)
        guard map["fmt"]?.text == "apple-appattest" else { throw Failure(description: "fmt is not apple-appattest") }
        guard let statement = map["attStmt"], let items = statement["x5c"]?.array, items.count == 2 else {
            throw Failure(description: "attStmt.x5c is not two certificates")
        }
        let chain = try items.map { item in
            guard let der = item.bytes else { throw Failure(description: "an x5c entry is not a byte string") }
            do { return try Certificate(derEncoded: der) } catch { throw Failure(description: "an x5c certificate does not parse: \(error)") }
        }
        guard let receipt = statement["receipt"]?.bytes else { throw Failure(description: "attStmt has no receipt") }
        guard let authData = map["authData"]?.bytes else { throw Failure(description: "no authData") }
        return (chain, receipt, try AppAttestAuthenticatorData(authData, attested: true))
    }
}
