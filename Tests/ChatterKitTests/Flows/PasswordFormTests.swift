import Foundation
import Observation
import Synchronization
import Testing

@testable import ChatterKit

/// F2: the form's live rules (from the server's policy), sign-up with an emailed code, sign-in.
@Suite struct PasswordFormTests {
    @Test func messagesAppearOnlyAfterTheUserTyped() async throws {
        try await LiveServer.run { server in
            let form = await PasswordForm(client: server.client(), mode: .signUp)
            await form.load()
            #expect(await form.policy?.minimumLength == 8)
            #expect(await form.emailMessage == nil)
            #expect(await form.passwordMessage == nil)
            #expect(await form.canSubmit == false)

            await MainActor.run { form.email = "ada@" }
            #expect(await form.emailMessage == "Enter an address like name@example.com.")
            await MainActor.run { form.password = "short" }
            #expect(await form.passwordMessage == "Use at least 8 characters.")
            await MainActor.run { form.password = "password1" }
            #expect(await form.passwordMessage == "This password is too common; choose another.")
            await MainActor.run {
                form.email = "ada.lovelace@example.com"
                form.password = "ada.lovelace"
            }
            #expect(await form.passwordMessage == "Do not use your email address as your password.")
            let policy = try #require(await form.policy)
            await MainActor.run { form.password = String(repeating: "x", count: policy.maximumLength + 1) }
            #expect(await form.passwordMessage == "Use at most \(policy.maximumLength) characters.")
        }
    }

    @Test func signUpWithTheEmailedCodeThenSignInOnAnotherDevice() async throws {
        try await LiveServer.run { server in
            let store = MemoryStore()
            let form = await PasswordForm(client: server.client(store: store), mode: .signUp)
            await form.load()
            await MainActor.run {
                form.email = "ada@example.com"
                form.password = "correct horse battery staple"
            }
            #expect(await form.canSubmit == false, "the code is still missing")
            await form.sendCode()
            let code = try #require(server.mail.lastCode(to: "ada@example.com"))
            await MainActor.run { form.code = code }
            #expect(await form.canSubmit)
            #expect(await form.strength == .strong)
            #expect(await form.submit())
            #expect(await form.password.isEmpty, "the password is not kept once used")
            #expect(
                store.keys == [StoreKey.session, StoreKey.sessionStamp, StoreKey.email, StoreKey.device("ada@example.com")],
                "session (and its stamp), email and device token stored, never the password")
            for key in store.keys { #expect(try await store.read(key).map { String(decoding: $0, as: UTF8.self).contains("battery") } == false) }

            let laptop = await PasswordForm(client: server.client(store: store))
            await laptop.load()
            #expect(await laptop.email == "ada@example.com", "the remembered email is filled in")
            #expect(await laptop.emailMessage == nil, "a filled-in field is not 'typed' yet")
            await MainActor.run { laptop.password = "correct horse battery staple" }
            #expect(await laptop.submit())
        }
    }

    @Test func aWrongPasswordShowsTheBannerAndStopsLoading() async throws {
        try await LiveServer.run { server in
            let form = await PasswordForm(client: server.client())
            await form.load()
            await MainActor.run {
                form.email = "nobody@example.com"
                form.password = "whatever it is"
            }
            #expect(await form.submit() == false)
            #expect(await form.errorBanner == "The email or password is not right.")
            #expect(await form.isLoading == false)
        }
    }

    @Test func aPasswordMustFitTheHashInBytesNotOnlyInCharacters() {
        let policy = PasswordPolicy(minimumLength: 8, maximumLength: 64, maximumBytes: 72, blocksCommonPasswords: true)
        #expect(FormValidation.passwordProblem(String(repeating: "é", count: 36), policy: policy) == nil, "72 bytes fit")
        #expect(FormValidation.passwordProblem(String(repeating: "é", count: 37), policy: policy) == "This password is too long to store safely; shorten it.")
    }

    @MainActor @Test func aUIObservingTheFormHearsAboutTyping() {
        let form = PasswordForm(client: ChatterClient(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: MemoryStore()))
        let changed = Mutex(0)
        withObservationTracking {
            _ = form.emailMessage
        } onChange: {
            changed.withLock { $0 += 1 }
        }
        withObservationTracking {
            _ = form.isPasswordVisible
        } onChange: {
            changed.withLock { $0 += 1 }
        }
        form.email = "a"
        form.togglePasswordVisibility()
        #expect(changed.withLock { $0 } == 2)
        #expect(form.emailMessage != nil)
    }

    @Test func showHideAndStrength() async throws {
        let form = await PasswordForm(client: ChatterClient(api: ChatterAPI(baseURL: URL(string: "http://127.0.0.1:9")!), store: MemoryStore()), mode: .signUp)
        #expect(await form.isPasswordVisible == false)
        await form.togglePasswordVisibility()
        #expect(await form.isPasswordVisible)
        #expect(PasswordStrength.estimate("password") == .weak)
        #expect(PasswordStrength.estimate("aaaaaaaaaaaa") == .weak)
        #expect(PasswordStrength.estimate("kitten42") == .fair)
        #expect(PasswordStrength.estimate("Kitten42!x") == .good)
        #expect(PasswordStrength.estimate("Tr0ub4dor&3-long") == .strong)
    }

    @Test(arguments: ["a@b.co", "first.last+tag@sub.example.org"])
    func plausibleEmailsPass(email: String) {
        #expect(FormValidation.emailProblem(email) == nil)
    }

    @Test(arguments: ["", "plain", "@example.com", "a@b", "a@.com", "a@b..com", "a b@c.com", "a@b@c.com"])
    func implausibleEmailsFail(email: String) {
        #expect(FormValidation.emailProblem(email) != nil)
    }
}
