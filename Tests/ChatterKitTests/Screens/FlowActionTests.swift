import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterKit

/// The actions ChatterUI's buttons call, against a live chatterd: the composer, the Google sheet's
/// provider, Apple's credential and failures.
@Suite struct FlowActionTests {
    @Test func theComposerPostsTheDraftAndClearsItOnlyOncePosted() async throws {
        try await LiveServer.run { server in
            let flow = await ChattFlow(client: server.client(), clientID: TestIssuer.clientID)
            await MainActor.run { flow.draft = "   \n" }
            #expect(await flow.canPost == false, "nothing to say")
            #expect(await flow.postDraft() == false)

            await MainActor.run { flow.draft = "hello" }
            let post = Task { await flow.postDraft() }
            #expect(await eventually { await flow.isSignInRequested })
            #expect(await flow.canPost == false, "one post at a time")
            await flow.completeSignIn { try server.googleToken(name: "Ada Lovelace") }
            #expect(await post.value)
            #expect(await flow.draft == "")
            #expect(await flow.chatts.map(\.message) == ["hello"])
        }
    }

    @Test func aCancelledGoogleSignInKeepsTheDraftAndSaysItWasCancelled() async throws {
        try await LiveServer.run { server in
            let flow = await ChattFlow(client: server.client(), clientID: TestIssuer.clientID)
            await MainActor.run { flow.draft = "kept" }
            let post = Task { await flow.postDraft() }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.completeSignIn { throw CancellationError() }
            #expect(await post.value == false)
            #expect(await flow.draft == "kept")
            #expect(await flow.errorMessage == "Sign-in was cancelled; the chatt was not posted.")
            let rows = try await server.client().courseChatts()
            #expect(rows.isEmpty)
        }
    }

    @Test func aFailingGoogleSignInSaysWhy() async throws {
        try await LiveServer.run { server in
            let flow = await ChattFlow(client: server.client(), clientID: TestIssuer.clientID)
            let post = Task { await flow.post("never") }
            #expect(await eventually { await flow.isSignInRequested })
            await flow.completeSignIn { throw ChatterError.network("Google is unreachable") }
            #expect(await post.value == false)
            #expect(await flow.errorMessage == "Sign-in failed: Cannot reach the server: Google is unreachable")
            #expect(await flow.isSigningIn == false)
        }
    }

    @Test func applesCredentialAsTheSheetReturnsIt() async throws {
        try await LiveServer.run { server in
            let flow = await AppleSignInFlow(client: server.client())
            let nonce = await flow.startRequest()
            var name = PersonNameComponents()
            name.givenName = " Grace "
            name.familyName = "Hopper"
            name.nickname = ""
            let token = Data(try server.appleToken(subject: "010", nonce: nonce.raw).utf8)
            let credential = AppleCredential(identityToken: token, fullName: name, email: "grace@privaterelay.appleid.com")
            #expect(await flow.complete(.success(credential), isCancellation: { _ in false }))
            #expect(await flow.signedIn?.user?.name == NameParts(givenName: "Grace", familyName: "Hopper"))
            #expect(await flow.signedIn?.user?.displayName == "Grace Hopper")
        }
    }

    @Test @MainActor func applesFailuresShowOnlyWhatTheUserDidNotDo() async {
        struct Cancelled: Error {}
        struct Failed: Error {}
        let flow = AppleSignInFlow(client: .sample(signedIn: false))
        _ = flow.startRequest()
        #expect(await flow.complete(.failure(Cancelled()), isCancellation: { $0 is Cancelled }) == false)
        #expect(flow.errorMessage == nil, "closing Apple's sheet is not an error")
        #expect(await flow.complete(.failure(Failed()), isCancellation: { $0 is Cancelled }) == false)
        #expect(flow.errorMessage?.hasPrefix("Sign in with Apple failed") == true)
        _ = flow.startRequest()
        #expect(await flow.complete(.success(AppleCredential(identityToken: nil, fullName: nil, email: nil)), isCancellation: { _ in false }) == false)
        #expect(flow.errorMessage == "Apple did not return an identity token. Try again.")
        #expect(
            await flow.complete(.success(AppleCredential(identityToken: Data("t".utf8), fullName: nil, email: nil)), isCancellation: { _ in false }) == false)
        #expect(flow.errorMessage == "Start the request first.", "every attempt needs its own nonce")
        #expect(NameParts(PersonNameComponents()) == nil && NameParts(nil) == nil, "later sign-ins carry no name")
    }
}
