import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// The software authenticator as the platform one: what `PlatformPasskeyAuthenticator` does with Face ID.
struct SoftwarePasskeys: PasskeyAuthenticator {
    let device: SoftwareAuthenticator

    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON { try device.register(options) }

    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON {
        try device.authenticate(options)
    }
}

/// A user who cancels the system sheet.
struct CancellingPasskeys: PasskeyAuthenticator {
    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON { throw CancellationError() }
    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON { throw CancellationError() }
}

/// `PasskeyFlow` against the live server, with a software authenticator answering as Face ID would.
@Suite struct PasskeyFlowTests {
    @Test func signUpWithAPasskeyAfterTheCodeThenSignInWithIt() async throws {
        try await LiveServer.run { server in
            let device = SoftwarePasskeys(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin))
            let client = server.client()
            _ = try await client.requestEmailCode(email: "grace@example.com")
            let code = try #require(server.mail.lastCode(to: "grace@example.com"))
            let flow = await PasskeyFlow(client: client, authenticator: device)
            #expect(await flow.signUp(email: "grace@example.com", code: code, name: "Grace's phone"))
            #expect(await flow.signedIn?.user?.email == "grace@example.com")
            #expect(await flow.refresh())
            #expect(await flow.passkeys.map(\.name) == ["Grace's phone"])

            try await client.sessions.signOut()
            let again = await PasskeyFlow(client: client, authenticator: device)
            #expect(await again.signIn())
            #expect(await again.signedIn?.user?.email == "grace@example.com")
            #expect(await client.sessions.currentSession != nil, "the session is kept as every sign-in's is")
        }
    }

    @Test func aSignedInAccountAddsRenamesAndCannotRemoveItsLastWayIn() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInWithGoogle(idToken: try server.googleToken(), clientID: TestIssuer.clientID)
            let flow = await PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)))
            #expect(await flow.addPasskey())
            let passkey = try #require(await flow.passkeys.first)
            #expect(passkey.synced)
            #expect(await flow.rename(passkey, to: "Laptop"))
            #expect(await flow.passkeys.first?.name == "Laptop")
            #expect(await flow.remove(passkey), "the Google identity is still a way in")
            #expect(await flow.passkeys.isEmpty)
        }
    }

    @Test func aCancelledSheetShowsNoBannerAndAPhishedOriginShowsTheServersReason() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            let cancelled = await PasskeyFlow(client: client, authenticator: CancellingPasskeys())
            #expect(await cancelled.signIn() == false)
            #expect(await cancelled.errorMessage == nil)

            try await client.signInWithGoogle(idToken: try server.googleToken(), clientID: TestIssuer.clientID)
            let phished = await PasskeyFlow(
                client: client, authenticator: SoftwarePasskeys(device: SoftwareAuthenticator(origin: "https://chatter.example.evil")))
            #expect(await phished.addPasskey() == false)
            #expect(await phished.errorMessage?.hasPrefix("The passkey was not accepted") == true)
        }
    }

    @Test func aWaitingAutofillRequestLeavesTheButtonUsableAndEndsWithoutABanner() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInWithGoogle(idToken: try server.googleToken(), clientID: TestIssuer.clientID)
            let device = SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)
            #expect(await PasskeyFlow(client: client, authenticator: SoftwarePasskeys(device: device)).addPasskey())
            try await client.sessions.signOut()

            let platform = AutofillUntilTheButton(device: device)
            let flow = await PasskeyFlow(client: client, authenticator: platform)
            let autofill = Task { await flow.signIn(autofill: true) }
            while await !platform.isWaiting { try await Task.sleep(for: .milliseconds(10)) }
            #expect(await flow.isAwaitingAutofill)
            #expect(await !flow.isLoading, "the button stays enabled while AutoFill waits")
            #expect(await flow.signIn(autofill: true) == false, "one AutoFill request at a time")
            #expect(await flow.signIn(), "the button's request replaces the waiting one")
            #expect(await autofill.value == false)
            #expect(await flow.errorMessage == nil, "the replaced request's cancel shows no banner")
            #expect(await !flow.isAwaitingAutofill)
            #expect(await client.sessions.currentSession != nil)
        }
    }

    @Test func optionsBecomeThePlatformsBytesAndItsBytesTheJSONABrowserSends() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            try await client.signInWithGoogle(idToken: try server.googleToken(), clientID: TestIssuer.clientID)
            let device = SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)
            let first = try await client.passkeyRegistrationOptions()
            _ = try await client.addPasskey(try device.register(first), name: "first")

            let options = try await client.passkeyRegistrationOptions()
            let parts = try PasskeyRegistrationParts(options)
            #expect(parts.relyingPartyID == "localhost" && parts.userVerification == "required")
            #expect(parts.challenge.count == 32 && parts.userID.count == 32)
            #expect(parts.challenge.base64URL == options.challenge && parts.userID.base64URL == options.user.id)
            #expect(parts.excludedCredentialIDs.map(\.base64URL) == [try #require(device.credentials.first).id].map { Data($0).base64URL })

            #expect(throws: SoftwareAuthenticator.Failure.excluded, "the device with the first passkey makes no second") {
                try device.register(options)
            }
            // What ASAuthorizationPlatformPublicKeyCredentialRegistration carries, as bytes, back to the JSON.
            let laptop = SoftwareAuthenticator(origin: LiveServer.passkeyOrigin)
            let made = try laptop.register(options)
            let rebuilt = RegistrationResponseJSON(
                credentialID: try #require(Data(base64URL: made.rawId)), clientDataJSON: try #require(Data(base64URL: made.response.clientDataJSON)),
                attestationObject: try #require(Data(base64URL: made.response.attestationObject)), attachment: made.authenticatorAttachment,
                transports: made.response.transports)
            #expect(rebuilt == made)
            #expect(try await client.addPasskey(rebuilt, name: "second").name == "second")

            try await client.sessions.signOut()
            let request = try await client.passkeySignInOptions()
            let assertionParts = try PasskeyAssertionParts(request)
            #expect(assertionParts.allowedCredentialIDs.isEmpty, "discoverable: the passkey names the account")
            #expect(assertionParts.challenge.base64URL == request.challenge && assertionParts.relyingPartyID == "localhost")
            let signed = try laptop.authenticate(request)
            let assertion = AuthenticationResponseJSON(
                credentialID: try #require(Data(base64URL: signed.rawId)), clientDataJSON: try #require(Data(base64URL: signed.response.clientDataJSON)),
                authenticatorData: try #require(Data(base64URL: signed.response.authenticatorData)),
                signature: try #require(Data(base64URL: signed.response.signature)), userHandle: signed.response.userHandle.flatMap { Data(base64URL: $0) },
                attachment: signed.authenticatorAttachment)
            #expect(assertion == signed)
            _ = try await client.signInWithPasskey(assertion)
            #expect(await client.sessions.currentSession != nil)
        }
    }

    @MainActor @Test func aPasskeysLineSaysWhereItLivesWhetherItSyncsAndWhenItWasUsed() {
        let flow = PasskeyFlow(client: .sample(), authenticator: SamplePasskeys())
        let used = Date(timeIntervalSince1970: 1_800_000_000)
        let synced = PasskeyInfo(
            id: "a", name: "Phone", authenticator: "iCloud Keychain", synced: true, createdAt: 0, lastUsedAt: 1_800_000_000, flagged: false)
        #expect(flow.detail(for: synced) == "iCloud Keychain · synced · last used " + used.formatted(date: .abbreviated, time: .omitted))
        let key = PasskeyInfo(id: "b", name: "Key", authenticator: nil, synced: false, createdAt: 0, lastUsedAt: nil, flagged: false)
        #expect(flow.detail(for: key) == "Passkey · not used yet")
        let copied = PasskeyInfo(id: "c", name: "Key", authenticator: nil, synced: true, createdAt: 0, lastUsedAt: nil, flagged: true)
        #expect(flow.detail(for: copied) == "Passkey · blocked: it may have been copied · not used yet")
    }

    /// RFC 4648 §10's vectors in the URL alphabet, unpadded; padding, the standard alphabet and
    /// impossible lengths are refused.
    @Test func base64URLIsRFC4648WithoutPadding() throws {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Data(plain.utf8).base64URL == encoded)
            #expect(Data(base64URL: encoded) == Data(plain.utf8))
        }
        #expect(Data([0xFB, 0xFF]).base64URL == "-_8")
        #expect(Data(base64URL: "-_8") == Data([0xFB, 0xFF]))
        for refused in ["Zg==", "+/8", "Zm9v YmFy", "Z", "Zm9vY", "Zm\n8"] { #expect(Data(base64URL: refused) == nil, "\(refused)") }
        let options = PasskeyRequestOptions(challenge: "not base64url!", timeout: 1, rpId: "localhost", allowCredentials: [], userVerification: "required")
        #expect(throws: PasskeyOptionsError(field: "challenge")) { try PasskeyAssertionParts(options) }
    }
}

/// A platform authenticator whose AutoFill request waits, as iOS's does, until a sheet is asked for,
/// and then ends as cancelled.
actor AutofillUntilTheButton: PasskeyAuthenticator {
    let device: SoftwareAuthenticator
    private var waiting: CheckedContinuation<Void, Never>?

    init(device: SoftwareAuthenticator) { self.device = device }

    var isWaiting: Bool { waiting != nil }

    func register(_ options: PasskeyCreationOptions) async throws -> RegistrationResponseJSON { try device.register(options) }

    func authenticate(_ options: PasskeyRequestOptions, autofill: Bool) async throws -> AuthenticationResponseJSON {
        if autofill {
            await withCheckedContinuation { waiting = $0 }
            throw ChatterError.cancelled
        }
        waiting?.resume()
        waiting = nil
        return try device.authenticate(options)
    }
}
