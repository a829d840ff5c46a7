import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Passkeys through the native API, on every backend, with a software authenticator answering as a
/// platform one does: adding one, signing up and in with one, the account's list, and what must fail.
@Suite(.tags(.bothDatabases)) struct PasskeyFlowTests {
    static func authenticator(origin: String = Harness.passkeyOrigin, counts: Bool = false) -> SoftwareAuthenticator {
        SoftwareAuthenticator(origin: origin, countsSignatures: counts)
    }

    /// Adds a passkey made by `authenticator` to the account signed in with `bearer`.
    static func addPasskey(_ h: Harness, _ authenticator: SoftwareAuthenticator, bearer: String, name: String? = nil) async throws -> PasskeyInfo {
        let options = try h.decode(PasskeyCreationOptions.self, try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: bearer))
        let credential = try authenticator.register(options)
        let response = try await h.post(NativePath.passkeyRegister, PasskeyRegistrationRequest(credential: credential, name: name), bearer: bearer)
        try #require(response.status == .created, "\(String(buffer: response.body))")
        return try h.decode(PasskeyInfo.self, response)
    }

    static func signInOptions(_ h: Harness) async throws -> PasskeyRequestOptions {
        try h.decode(PasskeyRequestOptions.self, try await h.post(NativePath.passkeySignInOptions, json: "{}"))
    }

    static func signIn(_ h: Harness, _ authenticator: SoftwareAuthenticator) async throws -> LiveResponse {
        let assertion = try authenticator.authenticate(try await signInOptions(h))
        return try await h.post(NativePath.passkeySignIn, PasskeySignInRequest(credential: assertion))
    }

    @Test(arguments: StoreBackend.available)
    func aPasskeyAddedToAnAccountSignsItIn(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let session = try await h.nativeSignIn()
            let authenticator = Self.authenticator()
            let info = try await Self.addPasskey(h, authenticator, bearer: session.accessToken, name: "Phone")
            #expect(info.name == "Phone")
            #expect(info.synced)
            #expect(!info.flagged)

            let listed = try h.decode([PasskeyInfo].self, try await h.get(NativePath.passkeys, bearer: session.accessToken))
            #expect(listed == [info])

            let response = try await Self.signIn(h, authenticator)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let signedIn = try h.decode(SessionResponse.self, response)
            #expect(signedIn.user.id == session.user.id)
            // The profile answered with the passkey's read of the account is the one /v1/me reads.
            let me = try h.decode(UserProfile.self, try await h.get(NativePath.me, bearer: signedIn.accessToken))
            #expect(signedIn.user == me)
            #expect(signedIn.user.methods == ["google", "passkey"])
            #expect(signedIn.user.email == session.user.email)
            let methods = try await h.store.auditEvents(userID: UUID(uuidString: session.user.id)).compactMap(\.method)
            #expect(methods.contains("passkey"))
            #expect(try await h.store.passkeys(of: UUID(uuidString: session.user.id)!).first?.lastUsedAt != nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func signingUpWithAPasskeyNeedsTheAddressesCodeAndThenSignsIn(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let wrong = try await h.post(NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: "pat@example.com", code: "000000"))
            #expect(wrong.status == .unauthorized)
            #expect(try await h.store.userCount() == 0, "no account without the code")

            let code = try await h.requestCode("pat@example.com")
            let optionsResponse = try await h.post(NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: "Pat@Example.com", code: code))
            try #require(optionsResponse.status == .ok, "\(String(buffer: optionsResponse.body))")
            let options = try h.decode(PasskeyCreationOptions.self, optionsResponse)
            #expect(options.user.name == "pat@example.com")
            #expect(!options.user.id.isEmpty && !options.user.id.contains("pat"), "the user handle is random, never the address")
            #expect(options.authenticatorSelection.residentKey == "required")
            #expect(options.rp.id == "localhost")

            let authenticator = Self.authenticator()
            let response = try await h.post(NativePath.passkeySignUp, PasskeyRegistrationRequest(credential: try authenticator.register(options)))
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let session = try h.decode(SessionResponse.self, response)
            #expect(session.user.email == "pat@example.com")

            let again = try await Self.signIn(h, authenticator)
            #expect(again.status == .ok)
            #expect(try h.decode(SessionResponse.self, again).user.id == session.user.id)
        }
    }

    /// One assertion sent by 100 requests at once: its challenge is redeemed once, so one session.
    @Test(arguments: StoreBackend.available)
    func oneAssertionSentAHundredTimesAtOnceYieldsOneSession(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let session = try await h.nativeSignIn()
            let authenticator = Self.authenticator()
            _ = try await Self.addPasskey(h, authenticator, bearer: session.accessToken)
            let sessionsBefore = try await h.store.sessionCount()
            let assertion = try authenticator.authenticate(try await Self.signInOptions(h))
            let answers = try await h.parallel(100) { _ in try await h.post(NativePath.passkeySignIn, PasskeySignInRequest(credential: assertion)) }
            #expect(answers.count(.ok) == 1)
            #expect(answers.count(.unauthorized) == 99)
            #expect(try await h.store.sessionCount() == sessionsBefore + 1)
            let refused = try #require(answers.first { $0.status == .unauthorized })
            #expect(try h.error(refused).code == .passkeyChallengeInvalid)
        }
    }

    @Test func optionsMadeForOneAccountCannotAddAPasskeyToAnother() async throws {
        try await Harness.run { h in
            let ada = try await h.nativeSignIn()
            let mallory = try await h.nativeSignIn(subject: "2000002", name: "Mallory")
            let options = try h.decode(PasskeyCreationOptions.self, try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: ada.accessToken))
            let credential = try Self.authenticator().register(options)
            let response = try await h.post(NativePath.passkeyRegister, PasskeyRegistrationRequest(credential: credential), bearer: mallory.accessToken)
            #expect(response.status == .unauthorized)
            #expect(try h.error(response).code == .passkeyChallengeInvalid)
            #expect(try await h.store.passkeys(of: UUID(uuidString: mallory.user.id)!).isEmpty)
            #expect(try await h.store.passkeys(of: UUID(uuidString: ada.user.id)!).isEmpty)
            // Sign-in options are not registration options either.
            let signIn = try await Self.signInOptions(h)
            var forged = options
            forged.challenge = signIn.challenge
            let reused = try await h.post(
                NativePath.passkeyRegister, PasskeyRegistrationRequest(credential: try Self.authenticator().register(forged)), bearer: ada.accessToken)
            #expect(try h.error(reused).code == .passkeyChallengeInvalid)
        }
    }

    @Test func aSecondPasskeyExcludesTheFirstAndTheListShowsBoth() async throws {
        try await Harness.run { h in
            let session = try await h.nativeSignIn()
            let phone = Self.authenticator()
            _ = try await Self.addPasskey(h, phone, bearer: session.accessToken)
            let options = try h.decode(
                PasskeyCreationOptions.self, try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: session.accessToken))
            #expect(options.excludeCredentials.map(\.id) == phone.credentials.map { Base64URL.encode($0.id) })
            #expect(throws: SoftwareAuthenticator.Failure.excluded) { try phone.register(options) }
            _ = try await Self.addPasskey(h, Self.authenticator(), bearer: session.accessToken, name: "Laptop")
            let listed = try h.decode([PasskeyInfo].self, try await h.get(NativePath.passkeys, bearer: session.accessToken))
            #expect(Set(listed.map(\.name)) == ["Passkey", "Laptop"], "unnamed, it is called after its provider, or \"Passkey\"")
        }
    }

    @Test func aPasskeyFromAnotherOriginIsRefusedNamingTheCheck() async throws {
        try await Harness.run { h in
            let session = try await h.nativeSignIn()
            let options = try h.decode(
                PasskeyCreationOptions.self, try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: session.accessToken))
            let phished = try Self.authenticator(origin: "https://chatter.example.evil").register(options)
            let response = try await h.post(NativePath.passkeyRegister, PasskeyRegistrationRequest(credential: phished), bearer: session.accessToken)
            #expect(response.status == .unauthorized)
            let error = try h.error(response)
            #expect(error.code == .passkeyRejected)
            #expect(error.check == PasskeyCheck.origin.rawValue)
            #expect(try await h.store.passkeys(of: UUID(uuidString: session.user.id)!).isEmpty)
        }
    }

    /// `--passkey-require-attestation`: the options ask for `direct`, and a passkey that sends no attestation
    /// (as synced passkeys do) is refused naming the trust check; nothing is stored, on the API and the pages.
    @Test func requiredAttestationRefusesAPasskeyThatSendsNone() async throws {
        try await Harness.run(configure: { $0.passkeyRequireTrustedAttestation = true }) { h in
            let session = try await h.nativeSignIn()
            let options = try h.decode(
                PasskeyCreationOptions.self, try await h.post(NativePath.passkeyRegisterOptions, json: "{}", bearer: session.accessToken))
            #expect(options.attestation == "direct")
            let response = try await h.post(
                NativePath.passkeyRegister, PasskeyRegistrationRequest(credential: try Self.authenticator().register(options)), bearer: session.accessToken)
            #expect(response.status == .unauthorized, "\(String(buffer: response.body))")
            let error = try h.error(response)
            #expect(error.code == .passkeyRejected)
            #expect(error.check == PasskeyCheck.trust.rawValue)
            #expect(try await h.store.passkeys(of: UUID(uuidString: session.user.id)!).isEmpty)

            var browser = WebBrowser(h)
            _ = try await browser.signInWithCode("grace@example.com")
            let added = try await PasskeyPagesTests.addPasskey(&browser, Self.authenticator())
            #expect(added.status == .seeOther && added.headers[.location] == "/account", "\(WebBrowser.text(added).prefix(2000))")
            #expect(WebBrowser.text(try await browser.get("/account")).contains("class=\"error\""), "the account page says why")
            #expect(try await h.store.passkeys(of: try #require(try await h.store.accounts(withEmail: "grace@example.com").first?.user.id)).isEmpty)
        }
    }

    @Test func aCounterThatGoesBackwardsFlagsThePasskeyForGood() async throws {
        try await Harness.run { h in
            let session = try await h.nativeSignIn()
            let key = Self.authenticator(counts: true)
            _ = try await Self.addPasskey(h, key, bearer: session.accessToken)
            #expect(try await Self.signIn(h, key).status == .ok)  // counter 2
            key.setSignCount(1, of: key.credentials[0].id)  // a copy made earlier signs with 2 again
            let cloned = try await Self.signIn(h, key)
            #expect(cloned.status == .unauthorized)
            #expect(try h.error(cloned).check == PasskeyCheck.signCount.rawValue)
            let listed = try h.decode([PasskeyInfo].self, try await h.get(NativePath.passkeys, bearer: session.accessToken))
            #expect(listed.first?.flagged == true)
            key.setSignCount(100, of: key.credentials[0].id)
            let after = try await Self.signIn(h, key)
            #expect(try h.error(after).code == .unknownPasskey, "a flagged passkey signs in no more")
        }
    }

    @Test func aPasskeyIsRenamedAndRemovedByItsOwnerOnly() async throws {
        try await Harness.run { h in
            let ada = try await h.nativeSignIn()
            let mallory = try await h.nativeSignIn(subject: "2000002", name: "Mallory")
            let authenticator = Self.authenticator()
            let info = try await Self.addPasskey(h, authenticator, bearer: ada.accessToken)
            let path = NativePath.passkeys + "/" + info.id

            #expect(try await h.patch(path, PasskeyRenameRequest(name: "taken"), bearer: mallory.accessToken).status == .notFound)
            #expect(try await h.delete(path, bearer: mallory.accessToken).status == .notFound)
            #expect(try await h.patch(path, PasskeyRenameRequest(name: "  "), bearer: ada.accessToken).status == .badRequest)
            #expect(try await h.patch(path, PasskeyRenameRequest(name: String(repeating: "x", count: 65)), bearer: ada.accessToken).status == .badRequest)
            let renamed = try await h.patch(path, PasskeyRenameRequest(name: "Work\u{202E}phone\n"), bearer: ada.accessToken)
            #expect(try h.decode(PasskeyInfo.self, renamed).name == "Workphone", "format characters go, as in every shown label")

            #expect(try await h.delete(path, bearer: ada.accessToken).status == .noContent)
            #expect(try await h.get(NativePath.passkeys, bearer: ada.accessToken).body.readableBytes == 2)  // []
            #expect(try h.error(try await Self.signIn(h, authenticator)).code == .unknownPasskey)
            #expect(try await h.delete(path, bearer: ada.accessToken).status == .notFound)
        }
    }

    @Test func aDisabledAccountsPasskeySignsNothingIn() async throws {
        try await Harness.run { h in
            let session = try await h.nativeSignIn()
            let authenticator = Self.authenticator()
            _ = try await Self.addPasskey(h, authenticator, bearer: session.accessToken)
            _ = try await h.store.setDisabled(true, userID: UUID(uuidString: session.user.id)!, at: h.clock.now)
            let sessions = try await h.store.sessionCount()
            let response = try await Self.signIn(h, authenticator)
            #expect(response.status == .forbidden)
            #expect(try h.error(response).code == .accountDisabled)
            #expect(try await h.store.sessionCount() == sessions)
        }
    }

    @Test func bodiesThatAreNotPasskeyResponsesGet4xxAndChangeNothing() async throws {
        try await Harness.run { h in
            let session = try await h.nativeSignIn()
            let before = try await h.counts()
            for body in [
                "", "{}", "[]", #"{"credential":{}}"#,
                #"{"credential":{"id":"a","rawId":"a","type":"public-key","response":{"clientDataJSON":"%%%","authenticatorData":"","signature":""}}}"#,
            ] {
                for path in [NativePath.passkeySignIn, NativePath.passkeySignUp] {
                    let response = try await h.post(path, json: body)
                    #expect((400..<500).contains(response.status.code), "\(path) \(body): \(response.status)")
                }
                let registered = try await h.post(NativePath.passkeyRegister, json: body, bearer: session.accessToken)
                #expect((400..<500).contains(registered.status.code))
            }
            #expect(try await h.counts() == before)
            #expect(try await h.post(NativePath.passkeyRegisterOptions, json: "{}").status == .unauthorized, "adding a passkey needs a session")
        }
    }

    /// Each options request keeps a challenge, and every answer needs one, so one network's options
    /// requests are limited (and a refusal keeps nothing).
    @Test func oneNetworksCeremoniesAreLimited() async throws {
        try await Harness.run { h in
            let answers = try await h.parallel(PasskeyService.defaultCeremoniesPerNetwork + 20) { _ in
                try await h.post(NativePath.passkeySignInOptions, json: "{}")
            }
            #expect(answers.count(.ok) == PasskeyService.defaultCeremoniesPerNetwork)
            #expect(answers.count(.tooManyRequests) == 20)
        }
        try await Harness.run(configure: { $0.passkeyCeremoniesPerNetwork = 5 }) { h in
            let answers = try await h.parallel(12) { _ in try await h.post(NativePath.passkeySignInOptions, json: "{}") }
            #expect(answers.count(.ok) == 5, "--passkey-ceremony-limit sets it")
            #expect(answers.count(.tooManyRequests) == 7)
        }
        var zero = ServerConfiguration()
        zero.passkeyCeremoniesPerNetwork = 0
        #expect(throws: ConfigurationError.self) { try zero.validate() }
    }
}
