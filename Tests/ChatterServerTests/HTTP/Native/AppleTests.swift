import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Sign in with Apple (F4): nonce, idempotent registration with name parts, server-to-server notifications.
@Suite struct AppleTests {
    static let rawNonce = "c2b3f1a9-raw-nonce"
    static var hashedNonce: String { SHA256.hash(data: Array(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined() }

    func appleToken(
        _ h: Harness, subject: String = "001234.abcdef.1234", nonce: String? = hashedNonce, email: String? = "ada@privaterelay.appleid.com",
        verified: Any = "true"
    ) throws -> String {
        var claims: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "sub": subject,
            "iat": Int(h.clock.now.timeIntervalSince1970), "exp": Int(h.clock.now.timeIntervalSince1970) + 600,
            "email_verified": verified, "is_private_email": "true",
        ]
        claims["nonce"] = nonce
        claims["email"] = email
        return try h.appleIssuer.sign(claims)
    }

    static let name = NameParts(givenName: "Ada", familyName: "Lovelace", middleName: "Augusta", nickname: "Countess", namePrefix: "Lady", nameSuffix: "I")

    @Test func firstSignInStoresTheNameAndRepeatsAreIdempotent() async throws {
        try await Harness.run { h async throws in
            let token = try appleToken(h)
            let request = AppleSignInRequest(identityToken: token, rawNonce: Self.rawNonce, name: Self.name, email: "ada@privaterelay.appleid.com")
            let first = try h.decode(SessionResponse.self, try await h.post(NativePath.apple, request))
            #expect(first.user.displayName == "Ada Lovelace")
            #expect(first.user.name == Self.name)
            #expect(first.user.emailVerified, "Apple's string \"true\" counts as verified")
            // The client retries the same registration (it did not see the answer): still one user.
            let second = try h.decode(SessionResponse.self, try await h.post(NativePath.apple, request))
            #expect(second.user.id == first.user.id)
            // Later sign-ins carry no name: the stored one stays.
            let later = AppleSignInRequest(identityToken: try appleToken(h), rawNonce: Self.rawNonce)
            let third = try h.decode(SessionResponse.self, try await h.post(NativePath.apple, later))
            #expect(third.user.name == Self.name)
            #expect(third.user.displayName == "Ada Lovelace")
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test(arguments: [
        ("mismatch", "nonce_mismatch"), ("missing-in-request", "nonce_mismatch"), ("missing-in-token", "nonce_mismatch"), ("raw-in-token", "nonce_mismatch"),
    ])
    func nonceMustMatch(kind: String, check: String) async throws {
        try await Harness.run { h async throws in
            let request: AppleSignInRequest
            switch kind {
            case "mismatch": request = AppleSignInRequest(identityToken: try appleToken(h), rawNonce: "another nonce")
            case "missing-in-request": request = AppleSignInRequest(identityToken: try appleToken(h), rawNonce: nil)
            case "missing-in-token": request = AppleSignInRequest(identityToken: try appleToken(h, nonce: nil), rawNonce: Self.rawNonce)
            default: request = AppleSignInRequest(identityToken: try appleToken(h, nonce: Self.rawNonce), rawNonce: Self.rawNonce)
            }
            let response = try await h.post(NativePath.apple, request)
            #expect(response.status == .unauthorized)
            #expect(try h.error(response).check == check)
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Name parts come from the app, not from Apple's signed token, so each is held to the name limit.
    @Test(arguments: 0..<6)
    func anOverlongNamePartIsA400AndStoresNothing(index: Int) async throws {
        let part = [\NameParts.givenName, \.familyName, \.middleName, \.nickname, \.namePrefix, \.nameSuffix][index]
        try await Harness.run { h async throws in
            var name = Self.name
            name[keyPath: part] = String(repeating: "n", count: Limits.nameCharacters + 1)
            let response = try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h), rawNonce: Self.rawNonce, name: name))
            #expect(response.status == .badRequest)
            #expect(try h.error(response).code == .fieldTooLong)
            #expect(try await h.counts() == [0, 0, 0])
            name[keyPath: part] = String(repeating: "n", count: Limits.nameCharacters)
            #expect(try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h), rawNonce: Self.rawNonce, name: name)).status == .ok)
        }
    }

    @Test func noNonceOnEitherSideIsAccepted() async throws {
        try await Harness.run { h async throws in
            let response = try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h, nonce: nil), rawNonce: nil))
            #expect(response.status == .ok)
        }
    }

    @Test func googleNonceCanBeConfiguredRaw() async throws {
        try await Harness.run(configure: { $0.googleNonce = .raw }) { h async throws in
            var claims = TestIssuer.claims(now: h.clock.now)
            claims["nonce"] = "raw-google-nonce"
            let token = try h.issuer.sign(claims)
            let ok = try await h.post(NativePath.google, GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID, nonce: "raw-google-nonce"))
            #expect(ok.status == .ok)
            let bad = try await h.post(NativePath.google, GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID, nonce: "other"))
            #expect(try h.error(bad).check == "nonce_mismatch")
        }
    }

    @Test func unverifiedAppleEmailDoesNotLinkToAnExistingAccount() async throws {
        try await Harness.run { h async throws in
            let google = try await h.nativeSignIn(email: "ada@example.com")
            let unverified = try appleToken(h, email: "ada@example.com", verified: false)
            let apple = try h.decode(
                SessionResponse.self, try await h.post(NativePath.apple, AppleSignInRequest(identityToken: unverified, rawNonce: Self.rawNonce)))
            #expect(apple.user.id != google.user.id)
            let verified = try appleToken(h, subject: "other.apple.user", email: "ada@example.com", verified: true)
            let linked = try h.decode(
                SessionResponse.self, try await h.post(NativePath.apple, AppleSignInRequest(identityToken: verified, rawNonce: Self.rawNonce)))
            #expect(linked.user.id == google.user.id)
            #expect(linked.user.methods == ["apple", "google"])
        }
    }

    @Test func appleTokenForAnotherAppIsRefused() async throws {
        try await Harness.run(configure: { $0.appleClientIDs = ["com.other.app"] }) { h async throws in
            let response = try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h), rawNonce: Self.rawNonce))
            #expect(try h.error(response).check == "wrong_audience")
            #expect(try h.error(response).audience == [Harness.appleClientID])
        }
    }

    /// The real Sign in with Apple identity token from the vectors, with the clock pinned and its audience configured.
    @Test func realAppleIdentityTokenIsAccepted() async throws {
        let token = try Vectors.text("apple/apple_YuyXoY_1624294491.jwt")
        let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_624_294_491) }
        let verifier = IDTokenVerifier(
            provider: .apple(clientIDs: ["com.qianku.app.goodpure"]),
            keys: JWKSCache(source: FileJWKSSource(path: Vectors.path("apple/apple_YuyXoY_1624294491.jwks.json")), algorithms: ["RS256"], now: clock),
            now: clock)
        let identity = try await verifier.verify(token, nonce: .raw(nil))
        #expect(identity.issuer == "https://appleid.apple.com")
        #expect(identity.subject == "000401.d8aad721791f4caba19507422b094c48.0652")
        #expect(identity.emailVerified, "email_verified arrives as the string \"true\"")
        let late: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_624_380_891) }
        let expired = IDTokenVerifier(
            provider: verifier.provider,
            keys: JWKSCache(source: FileJWKSSource(path: Vectors.path("apple/apple_YuyXoY_1624294491.jwks.json")), algorithms: ["RS256"], now: late), now: late)
        await #expect(throws: TokenRejected.self) { try await expired.verify(token) }
    }

    /// Apple's real server-to-server notification (consent revoked), verified with the clock pinned.
    @Test func consentRevokedNotificationEndsAppleSessions() async throws {
        let payload = try Vectors.text("apple/apple_E6q83RB15n_1752572197.jwt")
        let clock = TestClock(Date(timeIntervalSince1970: 1_752_572_197))
        let subject = "000739.90ab72d5c78444a9bdf1a3fb80ff6660.2105"
        try await Harness.run(
            clock: clock, appleKeys: FileJWKSSource(path: Vectors.path("apple/apple_E6q83RB15n_1752572197.jwks.json")),
            configure: { $0.appleClientIDs = ["de.lunaone.sign-in-with-apple-example"] }
        ) { h async throws in
            let user = try await h.store.signIn(IdentityKey(issuer: "https://appleid.apple.com", subject: subject), "Apple User")
            let token = SessionToken.generate(signedWith: h.store.tokenKey)
            try await h.store.createSession(
                NewSession(
                    userID: user.id, method: "apple", accessHash: token.hash, accessExpiresAt: clock.now.addingTimeInterval(900), refreshHash: nil,
                    createdAt: clock.now, absoluteExpiresAt: clock.now.addingTimeInterval(3600), client: ClientInfo()))
            #expect(try await h.get(NativePath.me, bearer: token.secret).status == .ok)

            let response = try await h.post(NativePath.appleNotifications, json: #"{"payload":"\#(payload)"}"#)
            #expect(response.status == .ok)
            #expect(try await h.get(NativePath.me, bearer: token.secret).status == .unauthorized)
            #expect(try await h.store.auditEvents(userID: user.id).contains { $0.event == "apple_consent_revoked" })

            // The user signs in again; the same notification, delivered again or replayed, ends nothing.
            let again = SessionToken.generate(signedWith: h.store.tokenKey)
            try await h.store.createSession(
                NewSession(
                    userID: user.id, method: "apple", accessHash: again.hash, accessExpiresAt: clock.now.addingTimeInterval(900), refreshHash: nil,
                    createdAt: clock.now, absoluteExpiresAt: clock.now.addingTimeInterval(3600), client: ClientInfo()))
            #expect(try await h.post(NativePath.appleNotifications, json: #"{"payload":"\#(payload)"}"#).status == .ok)
            #expect(try await h.get(NativePath.me, bearer: again.secret).status == .ok)
            #expect(try await h.store.auditEvents(userID: user.id).filter { $0.event == "apple_consent_revoked" }.count == 1)
        }
    }

    @Test func forgedNotificationChangesNothing() async throws {
        try await Harness.run { h async throws in
            let session = try h.decode(
                SessionResponse.self, try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h), rawNonce: Self.rawNonce)))
            let stranger = try TestIssuer(kid: "apple-test-key", differentFrom: h.appleIssuer)
            let forged = try stranger.sign([
                "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "iat": Int(h.clock.now.timeIntervalSince1970),
                "exp": Int(h.clock.now.timeIntervalSince1970) + 600, "events": #"{"type":"account-delete","sub":"001234.abcdef.1234"}"#,
            ])
            let response = try await h.post(NativePath.appleNotifications, json: #"{"payload":"\#(forged)"}"#)
            #expect(response.status == .unauthorized)
            #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .ok)
        }
    }

    @Test func accountDeleteAndEmailNotificationsAreActedOn() async throws {
        try await Harness.run { h async throws in
            let session = try h.decode(
                SessionResponse.self, try await h.post(NativePath.apple, AppleSignInRequest(identityToken: try appleToken(h), rawNonce: Self.rawNonce)))
            func notify(_ type: String) async throws -> Int {
                let payload = try h.appleIssuer.sign([
                    "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "iat": Int(h.clock.now.timeIntervalSince1970),
                    "exp": Int(h.clock.now.timeIntervalSince1970) + 600, "events": #"{"type":"\#(type)","sub":"001234.abcdef.1234","event_time":1}"#,
                ])
                return try await h.post(NativePath.appleNotifications, json: #"{"payload":"\#(payload)"}"#).status.code
            }
            #expect(try await notify("email-disabled") == 200)
            #expect(try await notify("email-enabled") == 200)
            #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .ok)
            #expect(try await notify("account-delete") == 200)
            #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .unauthorized)
            #expect(try await h.store.userCount() == 0, "Apple was the account's only sign-in method")
        }
    }
}
