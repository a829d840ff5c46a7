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
}
