import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Sign in with Apple's tokens kept for revocation (issue: ChatterKit on a real iPhone, item 4): the app's
/// authorization code exchanged at a local stand-in of Apple's token service that checks the client secret as
/// Apple documents it (`AppleTokenService`), the refresh token kept sealed, and revoked when the account goes.
@Suite struct AppleTokenTests {
    static let subject = "001234.abcdef.1234"

    /// A chatterd whose Apple key is `apple`'s (or `key`, for an impostor's), talking to `apple` on loopback.
    func withServer(
        _ apple: AppleTokenService, key: P256.Signing.PrivateKey? = nil, _ body: @Sendable @escaping (Harness) async throws -> Void
    ) async throws {
        try await apple.run { url in
            try await withTemporaryDirectory { keys in
                let path = keys + "/AuthKey.p8"
                try (key ?? apple.key).pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
                try await Harness.run(configure: {
                    $0.appleTeamID = apple.teamID
                    $0.appleKeyID = apple.keyID
                    $0.applePrivateKeyPath = path
                    $0.appleAuthURL = url
                }) { h async throws in
                    apple.use(signer: { try h.appleIssuer.sign($0) }, now: h.clock.function)
                    try await body(h)
                }
            }
        }
    }

    func signIn(
        _ h: Harness, _ apple: AppleTokenService, subject: String = subject, code: String? = nil, user: String? = nil
    ) async throws -> LiveResponse {
        let now = Int(h.clock.now.timeIntervalSince1970)
        let token = try h.appleIssuer.sign([
            "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "sub": subject, "iat": now, "exp": now + 600,
            "email": "\(subject)@privaterelay.appleid.com", "email_verified": "true",
        ])
        return try await h.post(
            NativePath.apple,
            AppleSignInRequest(
                identityToken: token, rawNonce: nil, authorizationCode: code ?? apple.authorizationCode(for: subject, clientID: Harness.appleClientID),
                user: user))
    }

    func pending(_ h: Harness) async throws -> Int { try await h.store.appleTokensToRevoke(limit: 1000).count }

    @Test func theCodeIsExchangedOnceAndTheRefreshTokenKeptSealed() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            #expect(try await signIn(h, apple).status == .ok)
            #expect(apple.exchanges == 1)
            #expect(apple.refusals.isEmpty, "the client secret passed Apple's checks")
            let issued = try #require(apple.issued(for: Self.subject).first)
            #expect(try await h.store.hasAppleToken(subject: Self.subject, clientID: Harness.appleClientID))
            // Sealed at rest: the token's text is in no file of the database.
            let files = [h.databasePath, h.databasePath + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
            #expect(!files.isEmpty)
            #expect(files.allSatisfy { $0.range(of: Data(issued.utf8)) == nil })
            // Later sign-ins carry a code too; one token is enough, so Apple is not asked again.
            #expect(try await signIn(h, apple).status == .ok)
            #expect(apple.exchanges == 1)
        }
    }

    @Test func deletingTheAccountRevokesTheTokenAtApple() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let session = try h.decode(SessionResponse.self, try await signIn(h, apple))
            let issued = apple.issued(for: Self.subject)
            #expect(try await h.delete(NativePath.me, bearer: session.accessToken).status == .noContent)
            #expect(apple.revoked == issued)
            #expect(apple.refusals.isEmpty)
            #expect(try await pending(h) == 0, "nothing is kept once Apple revoked it")
        }
    }

    @Test func anOperatorsDeletionRevokesItToo() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let session = try h.decode(SessionResponse.self, try await signIn(h, apple))
            let issued = apple.issued(for: Self.subject)
            try await h.services.admin.delete(userID: try #require(UUID(uuidString: session.user.id)), by: .commandLine(login: "ops"))
            #expect(apple.revoked == issued)
            #expect(try await pending(h) == 0)
        }
    }

    @Test func aDeletionWhileAppleIsUnreachableIsRevokedByTheNextPurge() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let session = try h.decode(SessionResponse.self, try await signIn(h, apple))
            let issued = apple.issued(for: Self.subject)
            apple.setUnavailable(true)
            #expect(try await h.delete(NativePath.me, bearer: session.accessToken).status == .noContent, "the deletion does not wait for Apple")
            #expect(try await h.store.user(id: try #require(UUID(uuidString: session.user.id))) == nil)
            #expect(apple.revoked.isEmpty)
            #expect(try await pending(h) == 1, "the token waits, its account gone")
            #expect(await h.services.appleTokens.revokePending() == 0)
            apple.setUnavailable(false)
            #expect(await h.services.appleTokens.revokePending() == 1)
            #expect(apple.revoked == issued)
            #expect(try await pending(h) == 0)
        }
    }

    @Test(arguments: ["account-delete", "consent-revoked"])
    func applesNotificationsRevokeAndForgetTheToken(type: String) async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            #expect(try await signIn(h, apple).status == .ok)
            let issued = apple.issued(for: Self.subject)
            let now = Int(h.clock.now.timeIntervalSince1970)
            let payload = try h.appleIssuer.sign([
                "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "iat": now, "exp": now + 600,
                "events": #"{"type":"\#(type)","sub":"\#(Self.subject)","event_time":1}"#,
            ])
            #expect(try await h.post(NativePath.appleNotifications, json: #"{"payload":"\#(payload)"}"#).status == .ok)
            #expect(apple.revoked == issued)
            #expect(try await !h.store.hasAppleToken(subject: Self.subject, clientID: Harness.appleClientID))
            #expect(try await pending(h) == 0)
        }
    }

    /// A code is sent with an identity token; a code of another Apple ID (a replayed or mixed-up one) must not put
    /// that person's token on this account.
    @Test func aCodeOfAnotherAppleIDIsNotKept() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let stranger = apple.authorizationCode(for: "009999.other.0001", clientID: Harness.appleClientID)
            #expect(try await signIn(h, apple, code: stranger).status == .ok, "the sign-in itself is the identity token's")
            #expect(apple.exchanges == 1)
            #expect(try await !h.store.hasAppleToken(subject: Self.subject, clientID: Harness.appleClientID))
            #expect(try await !h.store.hasAppleToken(subject: "009999.other.0001", clientID: Harness.appleClientID))
        }
    }

    @Test func aClientSecretSignedWithAnotherKeyIsRefusedByAppleAndTheSignInStillWorks() async throws {
        let apple = AppleTokenService()
        try await withServer(apple, key: P256.Signing.PrivateKey()) { h async throws in
            #expect(try await signIn(h, apple).status == .ok)
            #expect(apple.refusals == ["invalid_client"])
            #expect(try await !h.store.hasAppleToken(subject: Self.subject, clientID: Harness.appleClientID))
        }
    }

    @Test func aUsedCodeIsRefusedByAppleAndNothingIsKept() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let code = apple.authorizationCode(for: Self.subject, clientID: Harness.appleClientID)
            let session = try h.decode(SessionResponse.self, try await signIn(h, apple, code: code))
            try await h.services.admin.delete(userID: try #require(UUID(uuidString: session.user.id)), by: .commandLine(login: "ops"))
            #expect(try await signIn(h, apple, code: code).status == .ok)
            #expect(apple.refusals == ["invalid_grant"])
            #expect(try await !h.store.hasAppleToken(subject: Self.subject, clientID: Harness.appleClientID))
        }
    }

    @Test func aUserThatIsNotTheTokensAppleIDIsA400AndChangesNothing() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let response = try await signIn(h, apple, user: "009999.other.0001")
            #expect(response.status == .badRequest)
            #expect(try h.error(response).code == .badRequest)
            #expect(try await h.store.userCount() == 0)
            #expect(apple.exchanges == 0)
            #expect(try await signIn(h, apple, user: Self.subject).status == .ok)
        }
    }

    @Test func anOverlongCodeIsA400AndNeverReachesApple() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let response = try await signIn(h, apple, code: String(repeating: "c", count: ProviderSignIn.authorizationCodeCharacters + 1))
            #expect(response.status == .badRequest)
            #expect(try h.error(response).code == .fieldTooLong)
            #expect(apple.exchanges == 0)
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Twenty first sign-ins at once, each with its own code: Apple is asked at most three times, one token is kept for
    /// the Apple ID, and it is the one revoked. Revoking one token ends the Apple ID's authorization of the app as a
    /// whole ("Invalidate the tokens and associated user authorizations":
    /// https://developer.apple.com/documentation/signinwithapplerestapi/revoke-tokens), so the others need not be.
    @Test func twentySignInsAtOnceKeepOneTokenPerAppleID() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            let responses = try await h.parallel(20) { _ in try await signIn(h, apple) }
            #expect(responses.count(.ok) == 20)
            #expect(apple.exchanges <= AppleTokens.exchangesPerHour)
            let user = try #require(UUID(uuidString: try h.decode(SessionResponse.self, responses[0]).user.id))
            try await h.services.admin.delete(userID: user, by: .commandLine(login: "ops"))
            #expect(apple.revoked.count == 1)
            #expect(try await pending(h) == 0)
        }
    }

    /// A client replaying its own identity token with made-up codes makes chatterd ask Apple three times an hour.
    @Test func madeUpCodesReachAppleAFewTimesAnHourAndSignInsGoOn() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            for attempt in 0..<6 { #expect(try await signIn(h, apple, code: "c.made-up.\(attempt)").status == .ok) }
            #expect(apple.exchanges == AppleTokens.exchangesPerHour)
            #expect(apple.refusals == Array(repeating: "invalid_grant", count: AppleTokens.exchangesPerHour))
            h.clock.advance(by: 3601)
            #expect(try await signIn(h, apple).status == .ok)
            #expect(apple.exchanges == AppleTokens.exchangesPerHour + 1)
            #expect(try await h.store.hasAppleToken(subject: Self.subject, clientID: Harness.appleClientID))
        }
    }

    /// A kept token may have been revoked at Apple without chatterd hearing of it; a sign-in a day later keeps the new
    /// one, which is what the deletion revokes.
    @Test func aDayOldTokenIsReplacedByTheNextSignInsAndTheNewOneRevoked() async throws {
        let apple = AppleTokenService()
        try await withServer(apple) { h async throws in
            #expect(try await signIn(h, apple).status == .ok)
            let first = apple.issued(for: Self.subject)
            #expect(try await signIn(h, apple).status == .ok)
            #expect(apple.exchanges == 1, "a token kept within the day stands")
            h.clock.advance(by: AppleTokens.renewedAfter + 1)
            let session = try h.decode(SessionResponse.self, try await signIn(h, apple))
            #expect(apple.exchanges == 2)
            let second = apple.issued(for: Self.subject).filter { !first.contains($0) }
            #expect(second.count == 1)
            #expect(try await h.delete(NativePath.me, bearer: session.accessToken).status == .noContent)
            #expect(apple.revoked == second)
        }
    }

    @Test func withoutAKeyNoCodeIsExchanged() async throws {
        let apple = AppleTokenService()
        try await apple.run { url in
            try await Harness.run(configure: { $0.appleAuthURL = url }) { h async throws in
                apple.use(signer: { try h.appleIssuer.sign($0) }, now: h.clock.function)
                #expect(try await signIn(h, apple).status == .ok)
                #expect(apple.exchanges == 0)
            }
        }
    }

    @Test func theKeySettingsGoTogetherAndAreChecked() throws {
        var plain = ServerConfiguration()
        plain.appleAuthURL = "http://appleid.example.com"
        #expect(throws: ConfigurationError.self) { try plain.validate() }
        plain.appleAuthURL = "http://127.0.0.1:8080"
        try plain.validate()
        var config = ServerConfiguration()
        #expect(try config.appleSigningKey() == nil)
        config.appleTeamID = "TEAM123456"
        #expect(throws: ConfigurationError.self) { try config.validate() }
        config.appleKeyID = "KEY1234567"
        config.applePrivateKeyPath = "/nonexistent/AuthKey.p8"
        #expect(throws: ConfigurationError.self) { try config.appleSigningKey() }
        let pem = P256.Signing.PrivateKey().pemRepresentation
        #expect(throws: ConfigurationError.self) { try AppleSigningKey(teamID: "team", keyID: "KEY1234567", pem: pem) }
        #expect(throws: ConfigurationError.self) { try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: "not a key") }
        #expect(throws: ConfigurationError.self) {
            try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: P384.Signing.PrivateKey().pemRepresentation)
        }
        #expect(try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: pem).teamID == "TEAM123456")
    }

    @Test func theClientSecretHasApplesClaimsAndAShortLife() async throws {
        let key = try AppleSigningKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: P256.Signing.PrivateKey().pemRepresentation)
        let secret = try await AppleClientSecret.make(for: "com.example.chatter", with: key, at: Date(timeIntervalSince1970: 1_800_000_000))
        let parts = secret.split(separator: ".").map { String($0) }
        #expect(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: try #require(base64URLDecoded(parts[0]))) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: try #require(base64URLDecoded(parts[1]))) as? [String: Any]
        #expect(header?["alg"] as? String == "ES256")
        #expect(header?["kid"] as? String == "KEY1234567")
        #expect(claims?["iss"] as? String == "TEAM123456")
        #expect(claims?["sub"] as? String == "com.example.chatter")
        #expect(claims?["aud"] as? String == "https://appleid.apple.com")
        #expect(claims?["iat"] as? Int == 1_800_000_000)
        #expect(claims?["exp"] as? Int == 1_800_000_300)
    }

    @Test func formEncodingEscapesEverythingButUnreservedBytes() {
        #expect(FormEncoding.encode(["code": "a+b=c&d é", "client_id": "com.example-app_1~"]) == "client_id=com.example-app_1~&code=a%2Bb%3Dc%26d%20%C3%A9")
    }
}
