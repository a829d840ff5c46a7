import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Passkeys on the pages, on every backend: each ceremony's two requests as `chatter.js` makes them
/// (options as JSON, then the form with the credential), with a software authenticator in the browser's
/// place; renaming and removing as plain forms; and what a forged, replayed or foreign form gets.
@Suite(.tags(.bothDatabases)) struct PasskeyPagesTests {
    static func credentialJSON(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// Adds a passkey from the account page of a signed-in `browser`; returns the form's answer.
    static func addPasskey(_ browser: inout WebBrowser, _ authenticator: SoftwareAuthenticator) async throws -> LiveResponse {
        let optionsResponse = try await browser.postForJSON("/account/passkeys/options")
        try #require(optionsResponse.status == .ok, "\(WebBrowser.text(optionsResponse))")
        let options = try browser.h.decode(PasskeyCreationOptions.self, optionsResponse)
        return try await browser.post("/account/passkeys/add", [("credential", try credentialJSON(try authenticator.register(options)))])
    }

    /// Signs `browser` in from the sign-in page with `authenticator`'s passkey; returns the form's answer.
    static func signIn(_ browser: inout WebBrowser, _ authenticator: SoftwareAuthenticator, next: String = "") async throws -> LiveResponse {
        _ = try await browser.get("/auth")
        let optionsResponse = try await browser.postForJSON("/auth/passkey/options")
        try #require(optionsResponse.status == .ok, "\(WebBrowser.text(optionsResponse))")
        let assertion = try authenticator.authenticate(try browser.h.decode(PasskeyRequestOptions.self, optionsResponse))
        return try await browser.post("/auth/passkey", [("credential", try credentialJSON(assertion)), ("next", next)])
    }

    @Test(arguments: StoreBackend.available)
    func aPasskeyAddedOnTheAccountPageSignsInFromTheSignInPage(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            var owner = WebBrowser(h)
            #expect(try await owner.signInWithCode("ada@example.com").status == .seeOther)
            let before = WebBrowser.text(try await owner.get("/account"))
            #expect(before.contains("No passkeys yet"))
            #expect(before.contains(#"action="/account/passkeys/add""#) && before.contains("data-passkey=\"create\""))

            let authenticator = PasskeyFlowTests.authenticator()
            let added = try await Self.addPasskey(&owner, authenticator)
            #expect(added.status == .seeOther, "\(WebBrowser.text(added))")
            #expect(added.headers[.location] == "/account?notice=passkey-added")
            let after = WebBrowser.text(try await owner.get("/account?notice=passkey-added"))
            #expect(after.contains("Your passkey is added") && after.contains(">synced<") && !after.contains("No passkeys yet"))
            #expect(after.contains("email, passkey"), "the profile lists the new way to sign in")

            var stranger = WebBrowser(h)
            let page = WebBrowser.text(try await stranger.get("/auth"))
            #expect(page.contains("Sign in with a passkey") && page.contains(#"autocomplete="username webauthn""#))
            #expect(page.contains("data-passkey-only hidden"), "the button stays hidden until script finds WebAuthn")
            let signedIn = try await Self.signIn(&stranger, authenticator, next: "/account")
            #expect(signedIn.status == .seeOther, "\(WebBrowser.text(signedIn))")
            #expect(signedIn.headers[.location] == "/account")
            #expect(stranger.cookies[SessionAuthenticator.cookieName] != nil)
            let account = WebBrowser.text(try await stranger.get("/account"))
            #expect(account.contains("Your account") && account.contains("ada@example.com"))
            let offSite = try await Self.signIn(&stranger, authenticator, next: "//evil.example/")
            #expect(offSite.status == .seeOther && offSite.headers[.location] == "/", "next stays on this site")
            let sessions = try await h.store.auditEvents(userID: nil).filter { $0.event == AuditLog.Event.signIn.rawValue }
            #expect(sessions.contains { $0.method == "passkey" })
        }
    }

    @Test(arguments: StoreBackend.available)
    func signingUpOnThePagesTakesTheCodeThenAPasskey(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            var browser = WebBrowser(h)
            _ = try await browser.get("/auth/signup")
            #expect(try await browser.post("/auth/code", [("purpose", "signup"), ("email", "Pat@Example.com")]).status == .seeOther)
            let page = WebBrowser.text(try await browser.get("/auth/code"))
            #expect(page.contains("Create account with a passkey") && page.contains(#"data-code-from="code""#))

            let wrong = try await browser.postForJSON("/auth/passkey/signup/options", [("code", "000000")])
            #expect(wrong.status == .unauthorized)
            #expect(try await h.store.userCount() == 0, "no account before the code")

            let code = try #require(h.mail.lastCode(to: "pat@example.com"))
            let optionsResponse = try await browser.postForJSON("/auth/passkey/signup/options", [("code", code)])
            try #require(optionsResponse.status == .ok, "\(WebBrowser.text(optionsResponse))")
            let options = try h.decode(PasskeyCreationOptions.self, optionsResponse)
            #expect(options.user.name == "pat@example.com", "the address the pending cookie holds, normalised")

            let authenticator = PasskeyFlowTests.authenticator()
            let done = try await browser.post("/auth/passkey/signup", [("credential", try Self.credentialJSON(try authenticator.register(options)))])
            #expect(done.status == .seeOther, "\(WebBrowser.text(done))")
            #expect(browser.cookies[SessionAuthenticator.cookieName] != nil)
            #expect(browser.cookies[WebVisitor.pendingCookieName] == nil, "the pending address is spent")
            let account = WebBrowser.text(try await browser.get("/account"))
            #expect(account.contains("pat@example.com") && account.contains(">synced<"))

            var later = WebBrowser(h)
            #expect(try await Self.signIn(&later, authenticator).status == .seeOther)
        }
    }

    @Test(arguments: StoreBackend.available)
    func passkeysAreRenamedAndRemovedWithoutScriptByTheirOwnerOnly(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            var ada = WebBrowser(h)
            _ = try await ada.signInWithCode("ada@example.com")
            let authenticator = PasskeyFlowTests.authenticator()
            _ = try await Self.addPasskey(&ada, authenticator)
            let adaID = try #require(try await h.store.linkedIdentity(.email("ada@example.com"))?.user.id)
            let id = Base64URL.encode(try #require(try await h.store.passkeys(of: adaID).first).credentialID)

            var mallory = WebBrowser(h)
            _ = try await mallory.signInWithCode("mallory@example.com")
            let foreignRename = try await mallory.post("/account/passkeys/\(id)/rename", [("name", "pwned")])
            #expect(foreignRename.status == .seeOther && foreignRename.headers[.location] == "/account")
            #expect(WebBrowser.text(try await mallory.get("/account")).contains("No passkey"), "the account page says why")
            let foreignDelete = try await mallory.post("/account/passkeys/\(id)/delete", [])
            #expect(foreignDelete.status == .seeOther && foreignDelete.headers[.location] == "/account")
            let foreignConfirm = try await mallory.get("/account/passkeys/\(id)/remove")
            #expect(foreignConfirm.status == .seeOther && !WebBrowser.text(foreignConfirm).contains(id), "no page about another's passkey")
            #expect(try await h.store.passkeys(of: adaID).first?.name != "pwned")
            #expect(try await h.store.passkeys(of: adaID).count == 1)

            // "Remove" asks first: the account page links to a page of its own, which alone carries the token.
            let account = WebBrowser.text(try await ada.get("/account"))
            #expect(account.contains("href=\"/account/passkeys/\(id)/remove\"") && !account.contains(ada.csrf(.passkeyDelete)))
            let confirm = WebBrowser.text(try await ada.get("/account/passkeys/\(id)/remove"))
            #expect(confirm.contains("Remove the passkey") && confirm.contains(ada.csrf(.passkeyDelete)))

            let forged = try await ada.post("/account/passkeys/\(id)/delete", [], csrf: ada.csrf(.revokeSession))
            #expect(forged.status == .forbidden, "another form's token is refused")
            #expect(try await h.store.passkeys(of: adaID).count == 1)

            let tooLong = try await ada.post("/account/passkeys/\(id)/rename", [("name", String(repeating: "x", count: 65))])
            #expect(tooLong.status == .seeOther, "post/redirect/get: the refusal is said on the account page")
            #expect(WebBrowser.text(try await ada.get("/account")).contains("64"))
            let renamed = try await ada.post("/account/passkeys/\(id)/rename", [("name", "  Work\u{202E}laptop  ")])
            #expect(renamed.status == .seeOther)
            let name = try #require(try await h.store.passkeys(of: adaID).first?.name)
            #expect(name == "Worklaptop", "cleaned as every shown label is: \(name.unicodeScalars.map(\.value))")
            #expect(WebBrowser.text(try await ada.get("/account")).contains("Worklaptop"))

            let removed = try await ada.post("/account/passkeys/\(id)/delete", [])
            #expect(removed.status == .seeOther && removed.headers[.location] == "/account?notice=passkey-removed")
            #expect(try await h.store.passkeys(of: adaID).isEmpty)
            var later = WebBrowser(h)
            let refused = try await Self.signIn(&later, authenticator)
            #expect(WebBrowser.refusal(refused) != nil && later.cookies[SessionAuthenticator.cookieName] == nil)
        }
    }

    @Test func forgedReplayedAndMalformedPasskeyFormsSignNoOneIn() async throws {
        try await Harness.run { h in
            var owner = WebBrowser(h)
            _ = try await owner.signInWithCode("ada@example.com")
            let authenticator = PasskeyFlowTests.authenticator()
            _ = try await Self.addPasskey(&owner, authenticator)

            var visitor = WebBrowser(h)
            _ = try await visitor.get("/auth")
            #expect(try await visitor.postForJSON("/auth/passkey/options", csrf: "forged").status == .forbidden)
            let options = try h.decode(PasskeyRequestOptions.self, try await visitor.postForJSON("/auth/passkey/options"))
            let assertion = try Self.credentialJSON(try authenticator.authenticate(options))

            var attacker = WebBrowser(h)
            _ = try await attacker.get("/auth")
            let crossSite = try await attacker.post("/auth/passkey", [("credential", assertion)], csrf: visitor.csrf(.passkeySignIn))
            #expect(crossSite.status == .forbidden, "another browser's token is refused before the credential is read")

            for garbage in ["", "{}", "not json", String(repeating: "[", count: 10_000)] {
                let refused = try await visitor.post("/auth/passkey", [("credential", garbage)])
                #expect(refused.status == .seeOther && refused.headers[.location] == "/auth", "\(garbage.prefix(20))")
                #expect(WebBrowser.refusal(refused)?.contains("passkey answer was incomplete") == true)
            }
            #expect(try await visitor.post("/auth/passkey", [("credential", assertion)]).status == .seeOther)
            var replay = WebBrowser(h)
            _ = try await replay.get("/auth")
            let again = try await replay.post("/auth/passkey", [("credential", assertion)])
            #expect(again.status == .seeOther && WebBrowser.refusal(again) != nil, "the challenge was spent")
            #expect(replay.cookies[SessionAuthenticator.cookieName] == nil)

            var signedOut = WebBrowser(h)
            _ = try await signedOut.get("/auth")
            #expect(try await signedOut.postForJSON("/account/passkeys/options").status == .unauthorized)
            let noPending = try await signedOut.postForJSON("/auth/passkey/signup/options", [("code", "123456")])
            #expect(noPending.status == .badRequest, "a sign-up needs the address the code step keeps")
        }
    }
}
