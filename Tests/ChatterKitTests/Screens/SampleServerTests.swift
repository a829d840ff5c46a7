import Foundation
import Testing

@testable import ChatterKit

/// The sample data behind ChatterUI's previews: every screen's first request gets a plausible answer.
@MainActor @Suite struct SampleServerTests {
    @Test func everyScreenLoadsFromTheSampleServer() async throws {
        let timeline = ChattFlow(client: .sample(signedIn: false), clientID: "preview")
        await timeline.launch()
        await timeline.reload()
        #expect(timeline.chatts.count == 3 && timeline.chatts.allSatisfy { $0.postedAt != nil })
        #expect(timeline.advisory == nil)

        let signedIn = ChattFlow(client: .sample(), clientID: "preview")
        await signedIn.launch()
        #expect(signedIn.advisory == .sessionAvailable(username: SampleServer.username))
        #expect(await signedIn.post("hi"))

        let sessions = SessionList(client: .sample())
        await sessions.load()
        #expect(sessions.rows.map(\.device) == ["Chatter app", "Mac", "chatter (terminal)"])

        let account = AccountFlow(client: .sample())
        await account.load()
        #expect(account.profile?.displayName == SampleServer.username && account.methodsDescription == "Google, Password")

        let form = PasswordForm(client: .sample(signedIn: false))
        await form.load()
        #expect(form.policy?.minimumLength == 8)
        form.email = "ada@example.com"
        form.password = "a long passphrase"
        #expect(await form.submit())

        let code = EmailCodeFlow(client: .sample(signedIn: false))
        code.email = "ada@example.com"
        await code.sendCode()
        #expect(code.step == .code)

        let web = WebSignIn(client: .sample())
        await web.load()
        #expect(web.request?.url?.host == "chatter.example")
    }

    @Test func aRouteChatterdDoesNotServeIsItsNotFound() async throws {
        let answer = try await SampleServer().send(TransportRequest(method: "GET", url: URL(string: "https://chatter.example/nowhere")!))
        #expect(answer.status == 404)
        #expect(try JSONDecoder().decode(ErrorBody.self, from: answer.body).error == "not_found")
        let revoke = try await SampleServer().send(TransportRequest(method: "DELETE", url: URL(string: "https://chatter.example/v1/sessions/abc")!))
        #expect(revoke.status == 200)
    }
}
