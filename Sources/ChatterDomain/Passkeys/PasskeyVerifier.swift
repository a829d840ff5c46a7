import ChatterCore
import ChatterWire
import Crypto
import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// Verifies WebAuthn registration and authentication responses (WebAuthn Level 3 §7.1 and §7.2) for one
/// relying party. The server and `chatterd check-passkey` both call `inspect…`, so what the shell
/// diagnoses is what the sign-in decides. Challenges are not looked up here: the caller redeems its
/// stored challenge (single use) and passes the bytes.
public struct PasskeyVerifier: Sendable {
    public let party: RelyingParty
    package let now: @Sendable () -> Date

    public init(party: RelyingParty, now: @escaping @Sendable () -> Date = Date.init) {
        self.party = party
        self.now = now
    }

    /// The stored side of a credential, which an assertion is checked against.
    public struct Credential: Sendable {
        public var id: [UInt8]
        public var publicKey: COSEKey
        public var signCount: UInt32
        public var backupEligible: Bool
        /// The account's random user handle; an assertion that names another is refused. Nil only where no
        /// account is known (`chatterd check-passkey` given a public key).
        public var userHandle: [UInt8]?

        public init(id: [UInt8], publicKey: COSEKey, signCount: UInt32, backupEligible: Bool, userHandle: [UInt8]?) {
            self.id = id
            self.publicKey = publicKey
            self.signCount = signCount
            self.backupEligible = backupEligible
            self.userHandle = userHandle
        }
    }

    /// §7.1, registering a new credential.
    public func inspectRegistration(
        _ response: RegistrationResponseJSON, challenge: [UInt8], userVerification: UserVerification = .preferred,
        algorithms: [COSEAlgorithm] = COSEAlgorithm.allCases
    ) async -> PasskeyReport<VerifiedRegistration> {
        var report = PasskeyReport<VerifiedRegistration>()
        guard let rawID = Base64URL.decodeAnySpelling(response.rawId), Base64URL.decodeAnySpelling(response.id) == rawID, response.type == "public-key",
            let clientDataBytes = Base64URL.decodeAnySpelling(response.response.clientDataJSON), let clientData = ClientData.parse(clientDataBytes),
            let objectBytes = Base64URL.decodeAnySpelling(response.response.attestationObject)
        else {
            report.record(
                .format, false, "expected a public-key credential whose id, rawId, clientDataJSON and attestationObject are base64url, with JSON client data")
            return report
        }
        let object: AttestationObject
        do {
            object = try AttestationObject(objectBytes)
        } catch {
            let unsupported = if case .unsupportedAlgorithm = error as? AuthenticatorData.Failure { true } else { false }
            report.record(unsupported ? .algorithm : .format, false, "the attestation object: \(error)")
            return report
        }
        guard let credential = object.authData.attestedCredential else {
            report.record(.format, false, "the authenticator data carries no attested credential (flag AT is not set)")
            return report
        }
        guard credential.credentialID == rawID else {
            report.record(.format, false, "rawId is not the credential ID in the authenticator data")
            return report
        }
        report.record(.format, true, "\(object.format.rawValue) attestation, credential ID of \(rawID.count) bytes, AAGUID \(Self.uuid(credential.aaguid))")

        checkClientData(&report, clientData, type: "webauthn.create", challenge: challenge)
        checkAuthenticatorData(&report, object.authData, userVerification: userVerification, storedBackupEligible: nil)
        let offered = algorithms.contains(credential.publicKey.algorithm)
        report.record(.algorithm, offered, credential.publicKey.algorithm.name + (offered ? "" : " was not offered"))

        let clientDataHash = Array(SHA256.hash(data: clientDataBytes))
        let statement: AttestationStatement.Verified
        do {
            statement = try AttestationStatement.verify(object, clientDataHash: clientDataHash, at: now())
            report.record(.attestation, true, statement.summary)
        } catch {
            report.record(.attestation, false, "\(object.format.rawValue): \(error)")
            return report
        }
        let trustPath = await trust(&report, statement)
        guard report.firstFailure == nil else { return report }
        report.verified = VerifiedRegistration(
            credentialID: rawID, publicKey: credential.publicKey, signCount: object.authData.signCount, aaguid: credential.aaguid,
            userVerified: object.authData.flags.contains(.userVerified), backupEligible: object.authData.flags.contains(.backupEligible),
            backedUp: object.authData.flags.contains(.backedUp), format: object.format, trustPath: trustPath,
            transports: response.response.transports ?? [])
        return report
    }

    /// §7.2, an assertion by a credential the caller looked up by the response's `rawId`.
    public func inspectAuthentication(
        _ response: AuthenticationResponseJSON, challenge: [UInt8], userVerification: UserVerification = .preferred, credential: Credential
    ) -> PasskeyReport<VerifiedAssertion> {
        var report = PasskeyReport<VerifiedAssertion>()
        guard let rawID = Base64URL.decodeAnySpelling(response.rawId), Base64URL.decodeAnySpelling(response.id) == rawID, response.type == "public-key",
            let clientDataBytes = Base64URL.decodeAnySpelling(response.response.clientDataJSON), let clientData = ClientData.parse(clientDataBytes),
            let authDataBytes = Base64URL.decodeAnySpelling(response.response.authenticatorData),
            let signature = Base64URL.decodeAnySpelling(response.response.signature)
        else {
            report.record(
                .format, false,
                "expected a public-key credential whose id, rawId, clientDataJSON, authenticatorData and signature are base64url, with JSON client data")
            return report
        }
        let authData: AuthenticatorData
        do {
            authData = try AuthenticatorData(authDataBytes)
        } catch {
            report.record(.format, false, "the authenticator data: \(error)")
            return report
        }
        guard authData.attestedCredential == nil else {
            report.record(.format, false, "an assertion's authenticator data carries an attested credential (flag AT)")
            return report
        }
        report.record(.format, true, "assertion by a credential ID of \(rawID.count) bytes")

        let handle = response.response.userHandle.map { Base64URL.decodeAnySpelling($0) }
        if rawID != credential.id {
            report.record(.credential, false, "the assertion is by another credential than the one checked")
        } else if let handle, let expected = credential.userHandle, handle != expected {
            report.record(.credential, false, "the user handle is not the one the credential was registered for")
        } else {
            let detail =
                credential.userHandle == nil
                ? "the credential given (user handle not checked)"
                : handle == nil ? "a registered credential (no user handle sent)" : "a registered credential of the user it names"
            report.record(.credential, true, detail)
        }
        checkClientData(&report, clientData, type: "webauthn.get", challenge: challenge)
        checkAuthenticatorData(&report, authData, userVerification: userVerification, storedBackupEligible: credential.backupEligible)

        let signed = authDataBytes + Array(SHA256.hash(data: clientDataBytes))
        let algorithm = credential.publicKey.algorithm.name
        let signatureValid = credential.publicKey.isValidSignature(signature, for: signed)
        report.record(
            .signature, signatureValid,
            signatureValid ? "\(algorithm) signature by the credential's key" : "the signature does not verify with the credential's \(algorithm) key")
        // §6.1.1: a counter is meaningful once either side is non-zero; synced passkeys keep 0.
        let counterMoves = authData.signCount != 0 || credential.signCount != 0
        if !counterMoves {
            report.skip(.signCount, "the authenticator keeps no counter (0), as synced passkeys do")
        } else {
            report.record(
                .signCount, authData.signCount > credential.signCount,
                "counter \(authData.signCount) after \(credential.signCount)\(authData.signCount > credential.signCount ? "" : ": the credential may have been cloned")"
            )
        }
        guard report.firstFailure == nil else { return report }
        report.verified = VerifiedAssertion(
            credentialID: rawID, signCount: authData.signCount, userVerified: authData.flags.contains(.userVerified),
            backedUp: authData.flags.contains(.backedUp))
        return report
    }

    package func checkClientData<V>(_ report: inout PasskeyReport<V>, _ data: ClientData, type: String, challenge: [UInt8]) {
        report.record(.type, data.type == type, data.type == type ? type : "client data of type \(data.type.debugDescription), expected \(type)")
        let sent = Base64URL.decodeAnySpelling(data.challenge)
        let matches = sent.map { constantTimeEqual($0, challenge) } ?? false
        report.record(.challenge, matches, matches ? "the challenge this server issued" : "not the challenge this server issued for the ceremony")
        let allowed = party.origins.contains(data.origin)
        report.record(.origin, allowed, allowed ? data.origin : "\(data.origin.debugDescription) is not one of \(party.origins.joined(separator: ", "))")
        if data.crossOrigin == true {
            let top = data.topOrigin.map { " inside \($0)" } ?? ""
            report.record(
                .crossOrigin, party.allowsCrossOrigin,
                party.allowsCrossOrigin ? "a cross-origin frame\(top), allowed" : "made in a cross-origin frame\(top), which this server does not allow")
        } else {
            report.record(.crossOrigin, true, "same origin")
        }
    }

    package func checkAuthenticatorData<V>(
        _ report: inout PasskeyReport<V>, _ data: AuthenticatorData, userVerification: UserVerification, storedBackupEligible: Bool?
    ) {
        let rpIDHash = Array(SHA256.hash(data: Array(party.id.utf8)))
        report.record(.rpID, data.rpIDHash == rpIDHash, data.rpIDHash == rpIDHash ? party.id : "the authenticator data is for another RP ID than \(party.id)")
        report.record(
            .userPresent, data.flags.contains(.userPresent), data.flags.contains(.userPresent) ? "flag UP" : "flag UP is not set: no one touched or confirmed")
        let verified = data.flags.contains(.userVerified)
        if userVerification == .required {
            report.record(.userVerified, verified, verified ? "flag UV" : "user verification was required and flag UV is not set")
        } else {
            report.skip(.userVerified, verified ? "flag UV (not required)" : "not verified (not required)")
        }
        let eligible = data.flags.contains(.backupEligible)
        let backedUp = data.flags.contains(.backedUp)
        if backedUp && !eligible {
            report.record(.backupFlags, false, "flag BS (backed up) without BE (backup eligible)")
        } else if let storedBackupEligible, storedBackupEligible != eligible {
            report.record(.backupFlags, false, "backup eligibility changed since registration (BE is \(eligible ? "set" : "not set") now)")
        } else {
            report.record(.backupFlags, true, eligible ? (backedUp ? "synced (BE, BS)" : "may be synced (BE), not backed up yet") : "bound to one device")
        }
    }

    /// Checks the statement's chain against the anchors: the Apple root for `apple`, the operator's (and
    /// Apple's) for the others. When the party requires trusted attestation, only a chain to an anchor
    /// passes: no attestation and self attestation vouch for nothing, so they are refused as an unknown root is.
    package func trust<V>(_ report: inout PasskeyReport<V>, _ statement: AttestationStatement.Verified) async -> [Certificate] {
        guard let leaf = statement.chain.first else {
            let what = statement.kind == .none ? "no attestation" : "self attestation (signed by the credential's own key)"
            if party.requiresTrustedAttestation {
                report.record(.trust, false, "\(what): trusted attestation is required and nothing vouches for this authenticator")
            } else {
                report.skip(.trust, statement.kind == .none ? "no attestation: nothing to verify" : "self attestation: no certificate to verify")
            }
            return []
        }
        let anchors = statement.format == .apple ? [TrustAnchors.appleWebAuthnRoot] + party.trustAnchors : party.trustAnchors + [TrustAnchors.appleWebAuthnRoot]
        let at = now()
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(fixedExpiryValidationTime: at)
            AttestationCertificatePolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(Array(statement.chain.dropFirst())))
        switch result {
        case .validCertificate(let chain):
            let path = Array(chain)
            report.record(
                .trust, true, "chain to \(path.last.map(AttestationStatement.name) ?? "an anchor") (\(path.count) certificates, at \(at.formatted(.iso8601)))")
            return path
        case .couldNotValidate(let failures):
            let why = failures.first.map { "\($0.policyFailureReason)" } ?? "no configured trust anchor issued it"
            if party.requiresTrustedAttestation {
                report.record(.trust, false, "the attestation chain ends in no trust anchor: \(why)")
            } else {
                report.skip(.trust, "not verified: no trust anchor (\(why))")
            }
            return []
        }
    }

    /// The credential a registration response carries, read without verifying it: what `check-passkey
    /// authentication --registration` checks an assertion against.
    public static func credential(in registration: RegistrationResponseJSON) throws -> Credential {
        guard let bytes = Base64URL.decodeAnySpelling(registration.response.attestationObject) else {
            throw AttestationStatement.Failure("attestationObject is not base64url")
        }
        let object = try AttestationObject(bytes)
        guard let attested = object.authData.attestedCredential else { throw AttestationStatement.Failure("the registration carries no credential") }
        return Credential(
            id: attested.credentialID, publicKey: attested.publicKey, signCount: object.authData.signCount,
            backupEligible: object.authData.flags.contains(.backupEligible), userHandle: nil)
    }

    package static func uuid(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "(none)" }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13],
                bytes[14], bytes[15]
            )
        ).uuidString.lowercased()
    }
}
