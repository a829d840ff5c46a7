import Foundation
import Testing

@testable import ChatterKit

/// F4: nonce, name preservation, the pending registration kept until the server confirms.
@Suite struct AppleSignInFlowTests {

    @Test func nonceHashIsSHA256OfTheRawNonce() {
        #expect(Nonce(raw: "abc").hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Nonce(raw: "").hashed == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = String(repeating: "a", count: 1_000)
        #expect(Nonce(raw: long).hashed == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        let first = Nonce.generate()
        let second = Nonce.generate()
        #expect(first.raw.count == 32 && first.raw != second.raw)
    }

    @Test func firstSignInSendsTheNameAndForgetsItOnceConfirmed() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let flow = await AppleSignInFlow(client: server.client(store: store))
            let nonce = await flow.startRequest()
            let name = NameParts(givenName: "Grace", familyName: "Hopper", middleName: "Brewster", nameSuffix: "Ret.")
            let token = try server.appleToken(subject: "001", nonce: nonce.raw)
            #expect(await flow.complete(identityToken: token, name: name, email: "grace@privaterelay.appleid.com"))

            let profile = try #require(await flow.signedIn?.user)
            #expect(profile.name == name, "every name component reaches the server")
            #expect(profile.displayName == "Grace Hopper")
            #expect(store.keys.contains(StoreKey.pendingAppleRegistration) == false)
            #expect(await flow.hasPendingRegistration == false)
        }
    }

    @Test func aFailedRegistrationKeepsTheNameAndRetriesOnNextLaunch() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            server.appleKeys.setFailing(true)
            let flow = await AppleSignInFlow(client: server.client(store: store))
            let nonce = await flow.startRequest()
            let name = NameParts(givenName: "Grace", familyName: "Hopper")
            let token = try server.appleToken(subject: "002", nonce: nonce.raw)
            #expect(await flow.complete(identityToken: token, name: name, email: "g@example.com") == false)
            #expect(await flow.errorMessage?.contains("try again") == true)
            #expect(store.keys.contains(StoreKey.pendingAppleRegistration))

            // Next launch, once Apple's keys can be fetched again: a new flow over the same storage sends
            // the kept registration.
            server.appleKeys.setFailing(false)
            server.clock.advance(by: 61)
            let next = await AppleSignInFlow(client: server.client(store: store))
            #expect(await next.retryPendingRegistration())
            #expect(await next.signedIn?.user?.name == name)
            #expect(store.keys.contains(StoreKey.pendingAppleRegistration) == false)
            #expect(await next.retryPendingRegistration() == false, "nothing left to send")
        }
    }

    @Test func aLaterSignInWithoutTheNameCarriesTheKeptOne() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            server.appleKeys.setFailing(true)
            let flow = await AppleSignInFlow(client: server.client(store: store))
            let first = await flow.startRequest()
            let name = NameParts(givenName: "Grace", familyName: "Hopper")
            let token = try server.appleToken(subject: "003", nonce: first.raw)
            _ = await flow.complete(identityToken: token, name: name, email: nil)

            // Apple sends no name the second time; the kept one goes with this request.
            server.appleKeys.setFailing(false)
            server.clock.advance(by: 61)
            let second = await flow.startRequest()
            let retryToken = try server.appleToken(subject: "003", nonce: second.raw)
            #expect(await flow.complete(identityToken: retryToken, name: nil, email: nil))
            #expect(await flow.signedIn?.user?.displayName == "Grace Hopper")
        }
    }

    @Test func aKeptTokenPastItsEndIsNotSentAgainButItsNameIsKept() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let counter = CountingTransport()
            server.appleKeys.setFailing(true)
            let flow = await AppleSignInFlow(client: server.client(store: store, transport: counter))
            let nonce = await flow.startRequest()
            let name = NameParts(givenName: "Grace", familyName: "Hopper")
            _ = await flow.complete(identityToken: try server.appleToken(subject: "005", nonce: nonce.raw), name: name, email: nil)
            #expect(counter.count(NativePath.apple) == 1)
            server.appleKeys.setFailing(false)

            // The view appears again after Apple's token has ended (ten minutes): nothing is sent, no 401 banner.
            server.clock.advance(by: 601)
            let next = await AppleSignInFlow(client: server.client(store: store, transport: counter))
            #expect(await next.retryPendingRegistration() == false)
            #expect(await next.retryPendingRegistration() == false)
            #expect(counter.count(NativePath.apple) == 1, "an ended token is never sent")
            #expect(await next.errorMessage == nil)
            #expect(await next.hasPendingRegistration, "the name Apple gives once is still kept")

            // The next tap of the button carries it.
            let second = await next.startRequest()
            #expect(await next.complete(identityToken: try server.appleToken(subject: "005", nonce: second.raw), name: nil, email: nil))
            #expect(await next.signedIn?.user?.displayName == "Grace Hopper")
        }
    }

    @Test func aKeptNameIsForgottenAfterAWeek() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            server.appleKeys.setFailing(true)
            let flow = await AppleSignInFlow(client: server.client(store: store))
            let nonce = await flow.startRequest()
            _ = await flow.complete(
                identityToken: try server.appleToken(subject: "006", nonce: nonce.raw), name: NameParts(givenName: "Grace"), email: nil)
            #expect(store.keys.contains(StoreKey.pendingAppleRegistration))
            server.clock.advance(by: PendingAppleRegistration.keptFor + 1)
            #expect(await flow.retryPendingRegistration() == false)
            #expect(store.keys.contains(StoreKey.pendingAppleRegistration) == false)
            #expect(await flow.hasPendingRegistration == false)
        }
    }

    @Test func signingInTwiceIsOneAccount() async throws {
        try await LiveServer.run { server in
            let flow = await AppleSignInFlow(client: server.client())
            for _ in 0..<2 {
                let nonce = await flow.startRequest()
                let token = try server.appleToken(subject: "004", nonce: nonce.raw)
                #expect(await flow.complete(identityToken: token, name: NameParts(givenName: "G"), email: nil))
            }
            #expect(try await server.store.userCount() == 1)
        }
    }

    @Test func aTokenForAnotherNonceIsRefused() async throws {
        try await LiveServer.run { server in
            let flow = await AppleSignInFlow(client: server.client())
            _ = await flow.startRequest()
            let token = try server.appleToken(subject: "005", nonce: "someone else's")
            #expect(await flow.complete(identityToken: token, name: nil, email: nil) == false)
            #expect(await flow.signedIn == nil)
        }
    }
}
