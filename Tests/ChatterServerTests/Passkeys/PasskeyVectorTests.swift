import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import Testing
import X509

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage

/// Every registration and authentication of WebAuthn Level 3's own test vectors, through the verifier the
/// server and `chatterd check-passkey` share.
@Suite struct PasskeyVectorTests {
    static let accepted: [(id: String, format: AttestationFormat, algorithm: COSEAlgorithm, trusted: Bool)] = [
        ("none-es256", .none, .es256, false),
        ("packed-self-es256", .packed, .es256, false),
        ("none-es256-long-credential-id", .none, .es256, false),
        ("packed-es256", .packed, .es256, true),
        ("packed-es384", .packed, .es384, true),
        ("packed-es512", .packed, .es512, true),
        ("packed-rs256", .packed, .rs256, true),
        ("packed-eddsa", .packed, .edDSA, true),
        ("tpm-es256", .tpm, .es256, true),
        ("android-key-es256", .androidKey, .es256, true),
        ("apple-es256", .apple, .es256, true),
        ("fido-u2f-es256", .fidoU2F, .es256, true),
    ]

    static func verifier(_ party: RelyingParty = WebAuthnVector.party()) -> PasskeyVerifier {
        PasskeyVerifier(party: party, now: { WebAuthnVector.checkedAt })
    }

    static func register(_ vector: WebAuthnVector, party: RelyingParty = WebAuthnVector.party()) async -> PasskeyReport<VerifiedRegistration> {
        await verifier(party).inspectRegistration(vector.registrationResponse, challenge: vector.registrationChallenge)
    }

    static func credential(_ registration: VerifiedRegistration, signCount: UInt32? = nil) -> PasskeyVerifier.Credential {
        PasskeyVerifier.Credential(
            id: registration.credentialID, publicKey: registration.publicKey, signCount: signCount ?? registration.signCount,
            backupEligible: registration.backupEligible, userHandle: [1, 2, 3])
    }

    @Test(arguments: accepted.map(\.id))
    func eachVectorRegistersAndThenSignsIn(id: String) async throws {
        let expected = Self.accepted.first { $0.id == id }!
        let vector = WebAuthnVector.named(id)
        let report = await Self.register(vector)
        #expect(report.passed, "\(report.text)")
        let registration = try report.get()
        #expect(registration.format == expected.format)
        #expect(registration.publicKey.algorithm == expected.algorithm)
        #expect(registration.credentialID == WebAuthnVector.hex(vector.registration["credential_id"]!))
        #expect(registration.aaguid == WebAuthnVector.hex(vector.registration["aaguid"] ?? "00000000000000000000000000000000"))
        #expect(registration.trustPath.last == (expected.trusted ? WebAuthnVector.attestationRoot : nil), "\(report.text)")

        let assertion = Self.verifier().inspectAuthentication(
            vector.authenticationResponse, challenge: vector.authenticationChallenge, credential: Self.credential(registration))
        #expect(assertion.passed, "\(assertion.text)")
        #expect(try assertion.get().credentialID == registration.credentialID)
    }

    /// How a native app that builds the JSON itself spells the binary values.
    enum AppSpelling: String, CaseIterable, Sendable {
        /// iOS: `Data.base64EncodedString()`, standard base64, padded.
        case iOS
        /// Android: `Base64.encodeToString(bytes, Base64.URL_SAFE or Base64.NO_WRAP)`, base64url, padded.
        case android

        func spell(_ base64url: String) -> String {
            let bytes = Base64URL.decode(base64url)!
            let padded = Data(bytes).base64EncodedString()
            switch self {
            case .iOS: return padded
            case .android: return padded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
        }
    }

    /// Every vector's registration and assertion, with each binary value re-spelled as an iOS or an Android
    /// app that builds the JSON itself sends it: accepted, as SimpleWebAuthn, py_webauthn, webauthn4j and
    /// go-webauthn accept them (they were refused as malformed).
    @Test(arguments: accepted.map(\.id), AppSpelling.allCases)
    func aResponseSpelledAsANativeAppSpellsItIsAccepted(id: String, spelling: AppSpelling) async throws {
        let vector = WebAuthnVector.named(id)
        var registration = vector.registrationResponse
        registration.id = spelling.spell(registration.id)
        registration.rawId = spelling.spell(registration.rawId)
        registration.response.clientDataJSON = spelling.spell(registration.response.clientDataJSON)
        registration.response.attestationObject = spelling.spell(registration.response.attestationObject)
        let report = await Self.verifier().inspectRegistration(registration, challenge: vector.registrationChallenge)
        #expect(report.passed, "\(report.text)")
        let registered = try report.get()

        var assertion = vector.authenticationResponse
        assertion.id = spelling.spell(assertion.id)
        assertion.rawId = spelling.spell(assertion.rawId)
        assertion.response.clientDataJSON = spelling.spell(assertion.response.clientDataJSON)
        assertion.response.authenticatorData = spelling.spell(assertion.response.authenticatorData)
        assertion.response.signature = spelling.spell(assertion.response.signature)
        let signedIn = Self.verifier().inspectAuthentication(
            assertion, challenge: vector.authenticationChallenge, credential: Self.credential(registered))
        #expect(signedIn.passed, "\(signedIn.text)")
    }

    @Test func ed448IsRefusedAsAnAlgorithmChatterdDoesNotAccept() async {
        let report = await Self.register(WebAuthnVector.named("packed-ed448"))
        #expect(report.firstFailure?.check == .algorithm, "\(report.text)")
        #expect(!report.passed)
    }

    @Test(arguments: ["none-es256-crossOrigin", "none-es256-topOrigin"])
    func aCeremonyInACrossOriginFrameIsRefusedUnlessAllowed(id: String) async throws {
        let vector = WebAuthnVector.named(id)
        let refused = await Self.register(vector)
        #expect(refused.firstFailure?.check == .crossOrigin, "\(refused.text)")
        let allowed = await Self.register(vector, party: WebAuthnVector.party(crossOrigin: true))
        #expect(allowed.passed, "\(allowed.text)")
    }

    @Test func aChainToNoConfiguredAnchorIsRecordedAsNotVerifiedOrRefusedWhenTrustIsRequired() async throws {
        let vector = WebAuthnVector.named("packed-es256")
        let lenient = await Self.register(vector, party: WebAuthnVector.party(anchors: []))
        #expect(lenient.passed)
        #expect(try lenient.get().trustPath.isEmpty)
        #expect(lenient.results.contains { $0.check == .trust && $0.outcome == .skipped && $0.detail.hasPrefix("not verified") })
        let strict = await Self.register(vector, party: WebAuthnVector.party(anchors: [], requireTrust: true))
        #expect(strict.firstFailure?.check == .trust, "\(strict.text)")
        // The built-in Apple root does not vouch for another vendor's chain.
        let apple = await Self.register(WebAuthnVector.named("apple-es256"), party: WebAuthnVector.party(anchors: [], requireTrust: true))
        #expect(apple.firstFailure?.check == .trust)
    }

    @Test func aChainIsCheckedAtTheGivenTime() async {
        // Before the vectors' CA was valid (2024-01-01), and after it expired (3024), the chain does not verify.
        let vector = WebAuthnVector.named("packed-es256")
        for instant in [1_600_000_000, 34_000_000_000] as [Double] {
            let verifier = PasskeyVerifier(party: WebAuthnVector.party(requireTrust: true), now: { Date(timeIntervalSince1970: instant) })
            let report = await verifier.inspectRegistration(vector.registrationResponse, challenge: vector.registrationChallenge)
            #expect(report.firstFailure?.check == .trust, "\(report.text)")
        }
    }

    /// With trusted attestation required, only a chain to an anchor registers: `none` and self attestation
    /// vouch for no authenticator (both once passed as "nothing to verify").
    @Test(arguments: accepted.map(\.id))
    func requiredAttestationTakesAChainToAnAnchor(id: String) async throws {
        let trusted = Self.accepted.first { $0.id == id }!.trusted
        let report = await Self.register(WebAuthnVector.named(id), party: WebAuthnVector.party(requireTrust: true))
        if trusted {
            #expect(report.passed, "\(report.text)")
        } else {
            #expect(report.firstFailure?.check == .trust, "\(report.text)")
            #expect(report.text.contains("trusted attestation is required"), "\(report.text)")
            #expect(report.verified == nil)
        }
    }

    /// `chatterd check-passkey registration --require-trusted-attestation` agrees with the route: it fails a
    /// registration that sends no attestation, and passes one whose chain ends in the anchor it is given.
    @Test func checkPasskeyRequiresTrustedAttestationAsTheRouteDoes() async throws {
        try await withTemporaryDirectory { dir in
            func check(_ id: String, anchor: Bool) async throws -> ChildProcess.Outcome? {
                let vector = WebAuthnVector.named(id)
                let response = dir + "/\(id).json"
                try JSONEncoder().encode(vector.registrationResponse).write(to: URL(fileURLWithPath: response))
                let root = dir + "/root.pem"
                try WebAuthnVector.attestationRoot.serializeAsPEM().pemString.write(toFile: root, atomically: true, encoding: .utf8)
                return try await AdminCommandTests.run(
                    [
                        "check-passkey", "registration", response, "--challenge", Base64URL.encode(vector.registrationChallenge), "--origin",
                        "https://example.org", "--rp-id", "example.org", "--at", "\(Int(WebAuthnVector.checkedAt.timeIntervalSince1970))",
                        "--require-trusted-attestation",
                    ] + (anchor ? ["--trust-anchor", root] : []))
            }
            guard let none = try await check("none-es256", anchor: true) else { return }
            #expect(none.status != 0)
            #expect(String(decoding: none.output, as: UTF8.self).contains("FAIL  trust"), "\(String(decoding: none.output, as: UTF8.self))")
            let packed = try #require(try await check("packed-es256", anchor: true))
            #expect(packed.status == 0, "\(String(decoding: packed.output, as: UTF8.self))")
            let unknown = try #require(try await check("packed-es256", anchor: false))
            #expect(unknown.status != 0, "no anchor given: the test vectors' CA is no one's")
        }
    }

    /// An attestation certificate is no CA (§8.2.1): basic constraints that do not parse decide nothing, so they
    /// refuse the statement (they once counted as "not a CA").
    @Test func anAttestationCertificateWhoseBasicConstraintsDoNotParseIsRefused() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("attestation") }
        func certificate(_ extensions: Certificate.Extensions) throws -> Certificate {
            try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: WebAuthnVector.checkedAt,
                notValidAfter: WebAuthnVector.checkedAt + 3600, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions, issuerPrivateKey: .init(key))
        }
        // A SEQUENCE holding a BOOLEAN whose one content byte is missing.
        let garbled = try certificate(
            Certificate.Extensions([Certificate.Extension(oid: .X509ExtensionID.basicConstraints, critical: true, value: [0x30, 0x03, 0x01, 0x01])]))
        #expect(throws: AttestationStatement.Failure.self) { try AttestationStatement.requireNotCA(garbled) }
        let authority = try certificate(Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) })
        #expect(throws: AttestationStatement.Failure.self) { try AttestationStatement.requireNotCA(authority) }
        try AttestationStatement.requireNotCA(try certificate(Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) }))
        try AttestationStatement.requireNotCA(try certificate(Certificate.Extensions()))
    }

    // MARK: Failures

    @Test func aWrongChallengeOriginOrRPIDIsNamed() async throws {
        let vector = WebAuthnVector.named("packed-es256")
        var challenge = vector.registrationChallenge
        challenge[0] ^= 1
        let wrongChallenge = await Self.verifier().inspectRegistration(vector.registrationResponse, challenge: challenge)
        #expect(wrongChallenge.firstFailure?.check == .challenge)

        let otherOrigin = RelyingParty(id: "example.org", origins: ["https://example.com"], trustAnchors: [WebAuthnVector.attestationRoot])
        let wrongOrigin = await Self.register(vector, party: otherOrigin)
        #expect(wrongOrigin.firstFailure?.check == .origin)

        let otherRP = RelyingParty(id: "example.com", origins: ["https://example.org"], trustAnchors: [WebAuthnVector.attestationRoot])
        let wrongRP = await Self.register(vector, party: otherRP)
        #expect(wrongRP.firstFailure?.check == .rpID)

        let registration = try await Self.register(vector).get()
        var get = vector.authenticationChallenge
        get[31] ^= 0x80
        let assertion = Self.verifier().inspectAuthentication(vector.authenticationResponse, challenge: get, credential: Self.credential(registration))
        #expect(assertion.firstFailure?.check == .challenge)
        let wrongRPAssertion = PasskeyVerifier(party: otherRP).inspectAuthentication(
            vector.authenticationResponse, challenge: vector.authenticationChallenge, credential: Self.credential(registration))
        #expect(wrongRPAssertion.firstFailure?.check == .rpID)
    }

    @Test func aRegistrationIsNotAnAssertionNorTheReverse() async throws {
        let vector = WebAuthnVector.named("none-es256")
        let registration = try await Self.register(vector).get()
        // The assertion's client data presented at registration: type webauthn.get, and no attestation object.
        var swapped = vector.authenticationResponse
        swapped.response.clientDataJSON = vector.registrationResponse.response.clientDataJSON
        let report = Self.verifier().inspectAuthentication(swapped, challenge: vector.registrationChallenge, credential: Self.credential(registration))
        #expect(report.firstFailure?.check == .type, "\(report.text)")
    }

    @Test func aBadSignatureATamperedFlagOrAnotherKeyIsRefused() async throws {
        let vector = WebAuthnVector.named("packed-es256")
        let registration = try await Self.register(vector).get()
        var response = vector.authenticationResponse
        var signature = Base64URL.decode(response.response.signature)!
        signature[signature.count - 1] ^= 1
        response.response.signature = Base64URL.encode(signature)
        let badSignature = Self.verifier().inspectAuthentication(response, challenge: vector.authenticationChallenge, credential: Self.credential(registration))
        #expect(badSignature.firstFailure?.check == .signature)

        var flagged = vector.authenticationResponse
        var data = Base64URL.decode(flagged.response.authenticatorData)!
        data[32] ^= 0x10  // claim a backup state the authenticator did not sign
        flagged.response.authenticatorData = Base64URL.encode(data)
        let tampered = Self.verifier().inspectAuthentication(flagged, challenge: vector.authenticationChallenge, credential: Self.credential(registration))
        #expect(tampered.firstFailure?.check == .signature)

        let other = try await Self.register(WebAuthnVector.named("packed-es384")).get()
        var otherKey = Self.credential(registration)
        otherKey.publicKey = other.publicKey
        let wrongKey = Self.verifier().inspectAuthentication(vector.authenticationResponse, challenge: vector.authenticationChallenge, credential: otherKey)
        #expect(wrongKey.firstFailure?.check == .signature)
    }

    @Test func aTamperedAttestationSignatureIsRefused() async throws {
        // The U2F statement signs no counter, the others sign the authenticator data: flipping the
        // statement's own signature breaks each.
        for id in ["packed-es256", "packed-self-es256", "tpm-es256", "android-key-es256", "fido-u2f-es256"] {
            let vector = WebAuthnVector.named(id)
            var response = vector.registrationResponse
            var object = Base64URL.decode(response.response.attestationObject)!
            let signature = try CBORDecoder.decodeWhole(object)["attStmt"]!["sig"]!.bytes!
            object[object.firstRange(of: signature)!.upperBound - 1] ^= 0x01
            response.response.attestationObject = Base64URL.encode(object)
            let report = await Self.verifier().inspectRegistration(response, challenge: vector.registrationChallenge)
            #expect(report.firstFailure?.check == .attestation, "\(id): \(report.text)")
        }
    }

    @Test func userVerificationRequiredIsEnforced() async throws {
        // packed-eddsa's registration and assertion carry UP only.
        let vector = WebAuthnVector.named("packed-eddsa")
        let registration = await Self.verifier().inspectRegistration(
            vector.registrationResponse, challenge: vector.registrationChallenge, userVerification: .required)
        #expect(registration.firstFailure?.check == .userVerified)
        let credential = Self.credential(try await Self.register(vector).get())
        let assertion = Self.verifier().inspectAuthentication(
            vector.authenticationResponse, challenge: vector.authenticationChallenge, userVerification: .required, credential: credential)
        #expect(assertion.firstFailure?.check == .userVerified)
    }

    @Test func aCounterThatGoesBackwardsIsRefusedAndZeroIsNotACounter() async throws {
        let vector = WebAuthnVector.named("none-es256")
        let registration = try await Self.register(vector).get()
        let zero = Self.verifier().inspectAuthentication(
            vector.authenticationResponse, challenge: vector.authenticationChallenge, credential: Self.credential(registration))
        #expect(zero.results.contains { $0.check == .signCount && $0.outcome == .skipped })
        let backwards = Self.verifier().inspectAuthentication(
            vector.authenticationResponse, challenge: vector.authenticationChallenge, credential: Self.credential(registration, signCount: 7))
        #expect(backwards.firstFailure?.check == .signCount)
    }

    @Test func anAssertionByAnotherCredentialOrForAnotherUserIsRefused() async throws {
        let vector = WebAuthnVector.named("none-es256")
        let registration = try await Self.register(vector).get()
        var credential = Self.credential(registration)
        credential.id[0] ^= 1
        let other = Self.verifier().inspectAuthentication(vector.authenticationResponse, challenge: vector.authenticationChallenge, credential: credential)
        #expect(other.firstFailure?.check == .credential)
        var response = vector.authenticationResponse
        response.response.userHandle = Base64URL.encode([9, 9, 9])
        let otherUser = Self.verifier().inspectAuthentication(response, challenge: vector.authenticationChallenge, credential: Self.credential(registration))
        #expect(otherUser.firstFailure?.check == .credential)
    }

    @Test func anAndroidKeyForAllAppsImportedOrNotForSigningIsRefused() throws {
        typealias List = AndroidKey.AuthorizationList
        try AndroidKey.check([List(), List(purposes: [2], origin: 0)])
        #expect(throws: AttestationStatement.Failure.self) { try AndroidKey.check([List(allApplications: true), List(purposes: [2], origin: 0)]) }
        #expect(throws: AttestationStatement.Failure.self) { try AndroidKey.check([List(), List(purposes: [2], origin: 2)]) }  // imported
        #expect(throws: AttestationStatement.Failure.self) { try AndroidKey.check([List(purposes: [0, 1]), List(origin: 0)]) }  // encrypt only
    }

    /// What `chatterd check-passkey` prints: one line per check, the failure's reason, the verdict.
    @Test func theReportTextNamesEveryCheckAndTheFailure() async throws {
        let vector = WebAuthnVector.named("packed-es256")
        let accepted = await Self.register(vector).text
        #expect(accepted.contains("PASS  attestation   format packed, basic attestation by C=AA,OU=Authenticator Attestation,O=W3C,CN=WebAuthn test vectors"))
        #expect(accepted.contains("PASS  trust         chain to C=AA,OU=Authenticator Attestation CA,O=W3C,CN=WebAuthn test vectors"))
        #expect(accepted.hasSuffix("ceremony accepted"))
        let refused = await Self.register(vector, party: RelyingParty(id: "example.org", origins: ["https://chatter.example"])).text
        #expect(refused.contains("FAIL  origin        \"https://example.org\" is not one of https://chatter.example"))
        #expect(refused.contains("SKIP  trust         not verified: no trust anchor"))
        #expect(refused.hasSuffix("ceremony refused"))
    }

    @Test func theBuiltInAppleRootIsApplesPublishedCertificate() {
        let der = try! TrustAnchors.appleWebAuthnRoot.serializeAsPEM().derBytes
        let fingerprint = SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprint == "0915dd5c07a28db549d1f677bb5a75d4bfbe9561a773424327762e9e02f9bb29")
    }
}
