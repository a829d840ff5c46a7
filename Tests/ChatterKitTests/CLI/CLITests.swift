import ChatterTestSupport
import Foundation
import Synchronization
import Testing

@testable import ChatterKit
@testable import chatter

/// The `chatter` commands against a live chatterd, in-process, as a person at a shell uses them.
@Suite struct CLITests {
    @Test func loginWithAnEmailCodeThenWhoAmI() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                let login = await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server))
                #expect(login.exitCode == 0, "\(login.errors)")
                #expect(login.prompts == ["Email: ", "Code: "])
                #expect(login.text == "Signed in as ada (ada@example.com).", "an emailed-code account is named after its address")
                #expect(login.errors.contains { $0.contains("code was sent to ada@example.com") })

                let whoami = await cli.run(["whoami"])
                #expect(whoami.exitCode == 0)
                #expect(whoami.text.split(separator: "\n").first == "ada <ada@example.com>")

                let json = await cli.run(["whoami", "--json"])
                let object = try #require(json.json as? [String: Any])
                #expect(object["email"] as? String == "ada@example.com")
                #expect(object["kind"] as? String == "native")
                #expect(object["methods"] as? [String] == ["email"])
            }
        }
    }

    /// A second `login` within the resend cooldown (the first was given up at the code prompt) asks for the
    /// code already sent instead of failing on the server's 429.
    @Test func loginDuringTheResendCooldownAsksForTheCodeAlreadySent() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                let abandoned = await cli.run(["login"]) { $0.hasPrefix("Email") ? "ada@example.com" : nil }
                #expect(abandoned.exitCode != 0)
                let sent = try #require(server.mail.lastCode(to: "ada@example.com"))

                let login = await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server))
                #expect(login.exitCode == 0, "\(login.errors)")
                #expect(login.prompts == ["Email: ", "Code: "])
                #expect(login.errors.contains { $0.contains("sent to ada@example.com moments ago") }, "\(login.errors)")
                #expect(server.mail.lastCode(to: "ada@example.com") == sent, "no second code was sent")
                #expect(login.text == "Signed in as ada (ada@example.com).")
            }
        }
    }

    @Test func postSignsInFirstThenPostsAndChattsMarksMine() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                // Someone else posts through the course API first.
                let other = server.client()
                try await other.addUser(clientID: TestIssuer.clientID, idToken: server.googleToken(subject: "2", name: "Grace"))
                try await other.post("first!")
                server.clock.advance(by: 1)

                let cli = CLI(server: server, home: home)
                let post = await cli.run(["post", "hello from the shell"], answer: emailCodeAnswers("ada@example.com", server: server))
                #expect(post.exitCode == 0, "\(post.errors)")
                #expect(post.errors.first == "Sign in to post.")
                #expect(post.text == "Posted.")

                let chatts = await cli.run(["chatts"])
                #expect(chatts.exitCode == 0)
                #expect(chatts.output.count == 2)
                #expect(chatts.output[0].hasPrefix(" ") && chatts.output[0].hasSuffix("Grace: first!"))
                #expect(chatts.output[1].hasPrefix("*") && chatts.output[1].hasSuffix("ada: hello from the shell"))

                let json = await cli.run(["chatts", "--json"])
                let rows = try #require(json.json as? [[String: Any]])
                #expect(rows.map { $0["mine"] as? Bool } == [false, true])
                #expect(rows.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true }, "ISO 8601 in UTC for scripts")
            }
        }
    }

    @Test func loginWithAPastedGoogleToken() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home, extra: ["CHATTER_GOOGLE_CLIENT_ID": TestIssuer.clientID])
                let token = try server.googleToken(name: "Ada Lovelace")
                let login = await cli.run(["login", "--google-id-token", token])
                #expect(login.exitCode == 0, "\(login.errors)")
                #expect(login.text == "Signed in as Ada Lovelace (1000001@example.com).")

                #expect(await cli.run(["post", "native post"]).exitCode == 0)
                let rows = try await server.client().courseChatts()
                #expect(rows.map(\.name) == ["Ada Lovelace"], "native posts are in the course timeline too")
                let chatts = await cli.run(["chatts"])
                #expect(chatts.output.first?.hasPrefix("*") == true)
            }
        }
    }

    @Test func onACourseOnlyServerTheClientUsesTheCourseAPI() async throws {
        try await LiveServer.run(courseOnly: true) { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home, extra: ["CHATTER_GOOGLE_CLIENT_ID": TestIssuer.clientID])
                let other = server.client()
                try await other.addUser(clientID: TestIssuer.clientID, idToken: server.googleToken(subject: "2", name: "Grace"))
                try await other.post("first!")
                server.clock.advance(by: 1)

                let login = await cli.run(["login", "--google-id-token", try server.googleToken(name: "Ada Lovelace")])
                #expect(login.exitCode == 0, "\(login.errors)")
                #expect(login.text == "Signed in as Ada Lovelace.", "a chatterID from /adduser")
                #expect(await cli.run(["post", "via postauth"]).exitCode == 0)

                let chatts = await cli.run(["chatts"])
                #expect(chatts.output.count == 2)
                #expect(chatts.output[0].hasPrefix(" ") && chatts.output[0].hasSuffix("Grace: first!"))
                #expect(chatts.output[1].hasPrefix("*") && chatts.output[1].hasSuffix("Ada Lovelace: via postauth"), "marked by name")
                let whoami = await cli.run(["whoami"])
                #expect(whoami.text.contains("course chatterID"))
                #expect(await cli.run(["logout"]).text == "Signed out.")
                #expect(await cli.run(["whoami"]).exitCode == 3)
            }
        }
    }

    @Test func aGoogleTokenNeedsAClientID() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let result = await CLI(server: server, home: home).run(["login", "--google-id-token", try server.googleToken()])
                #expect(result.exitCode == 64)
                #expect(result.errors.first?.contains("--client-id") == true)
            }
        }
    }

    @Test func aRefusedGoogleTokenIsOneLineAndExitOne() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                let login = await cli.run(["login", "--google-id-token", "not.a.token", "--client-id", TestIssuer.clientID])
                #expect(login.exitCode == 1)
                #expect(login.errors.count == 1)
                #expect(login.errors.first?.hasPrefix("chatter: The ID token was rejected") == true)
            }
        }
    }

    @Test func loginWithAPassword() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let app = server.client()
                _ = try await app.requestEmailCode(email: "ada@example.com")
                try await app.signUp(email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), password: "a long passphrase")

                let cli = CLI(server: server, home: home)
                let wrong = await cli.run(["login", "--password", "--email", "ada@example.com"]) { _ in "not it at all" }
                #expect(wrong.exitCode == 1)
                #expect(wrong.errors == ["chatter: The email or password is not right."])
                let right = await cli.run(["login", "--password", "--email", "ada@example.com"]) { _ in "a long passphrase" }
                #expect(right.exitCode == 0)
                #expect(right.prompts == ["Password: "])
            }
        }
    }

    @Test func sessionsListsAndRevokes() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { root in
                let laptop = CLI(server: server, home: root + "/laptop")
                let desktop = CLI(server: server, home: root + "/desktop")
                #expect(await laptop.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server)).exitCode == 0)
                #expect(await desktop.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server)).exitCode == 0)

                let list = await laptop.run(["sessions", "--json"])
                let sessions = try #require(list.json as? [[String: Any]])
                #expect(sessions.count == 2)
                #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
                #expect(sessions.allSatisfy { ($0["userAgent"] as? String)?.hasPrefix("chatter/") == true })
                let other = try #require(sessions.first { $0["current"] as? Bool == false }?["id"] as? String)

                let revoke = await laptop.run(["sessions", "--revoke", other])
                #expect(revoke.exitCode == 0)
                #expect(revoke.text == "Revoked \(other).")
                let gone = await desktop.run(["whoami"])
                #expect(gone.exitCode == 3)
                #expect(gone.errors == ["chatter: The session is no longer valid. Sign in again."])
            }
        }
    }

    @Test func logoutHereAndEverywhere() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { root in
                let laptop = CLI(server: server, home: root + "/laptop")
                let desktop = CLI(server: server, home: root + "/desktop")
                for cli in [laptop, desktop] {
                    #expect(await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server)).exitCode == 0)
                }
                let logout = await laptop.run(["logout"])
                #expect(logout.text == "Signed out.")
                let after = await laptop.run(["whoami"])
                #expect(after.exitCode == 3)
                #expect(after.errors == ["chatter: Not signed in: run `chatter login` first."])
                #expect(await desktop.run(["whoami"]).exitCode == 0, "the other device is still signed in")

                #expect(await laptop.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server)).exitCode == 0)
                #expect(await laptop.run(["logout", "--all"]).text == "Signed out everywhere.")
                #expect(await desktop.run(["whoami"]).exitCode == 3)
            }
        }
    }

    @Test func jsonErrorsAndExitCodes() async throws {
        try await withTemporaryDirectory { home in
            let unreachable = CLI(environment: ["CHATTER_HOME": home, "CHATTER_SERVER": "http://127.0.0.1:9", "CHATTER_STORE": "file"])
            let offline = await unreachable.run(["chatts"])
            #expect(offline.exitCode == 4)
            #expect(offline.errors.count == 1 && offline.errors[0].hasPrefix("chatter: Cannot reach the server"))

            let notSignedIn = await unreachable.run(["whoami", "--json"])
            #expect(notSignedIn.exitCode == 3)
            let object = try #require(notSignedIn.json as? [String: Any])
            #expect(object["error"] as? String == "not_signed_in")
            #expect(notSignedIn.errors.isEmpty, "with --json the error goes to stdout as JSON")

            let script = await unreachable.run(["post", "from a script"])
            #expect(script.exitCode == 3, "nobody answers the sign-in prompt")
            #expect(script.errors.last == "chatter: Not signed in: run `chatter login` first.")

            let usage = await unreachable.run(["post"])
            #expect(usage.exitCode == 64)
        }
    }

    @Test func storageThatCannotBeReadIsExitFive() async throws {
        try await withTemporaryDirectory { home in
            _ = FileManager.default.createFile(atPath: home + "/sessions", contents: Data("not a directory".utf8))
            let cli = CLI(environment: ["CHATTER_HOME": home, "CHATTER_SERVER": "http://127.0.0.1:9", "CHATTER_STORE": "file"])
            let result = await cli.run(["whoami"])
            #expect(result.exitCode == 5)
            #expect(result.errors.first?.hasPrefix("chatter: Secure storage") == true)
        }
    }

    @Test func serverComesFromFlagThenEnvironmentThenConfigFile() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let config = home + "/config.json"
                try Data(#"{"server": "\#(server.baseURL.absoluteString)", "store": "file"}"#.utf8).write(to: URL(fileURLWithPath: config))
                let fromFile = CLI(environment: ["CHATTER_HOME": home])
                #expect(await fromFile.run(["chatts"]).text == "No chatts yet.")

                let badEnvironment = CLI(environment: ["CHATTER_HOME": home, "CHATTER_SERVER": "http://127.0.0.1:9"])
                #expect(await badEnvironment.run(["chatts"]).exitCode == 4, "the variable wins over the file")
                #expect(await badEnvironment.run(["chatts", "--server", server.baseURL.absoluteString]).exitCode == 0, "the flag wins over both")

                let invalid = await badEnvironment.run(["chatts", "--server", "ftp://example.com"])
                #expect(invalid.exitCode == 64)
            }
        }
    }

    @Test func httpsWithTheDevelopmentCertificateOrItsPin() async throws {
        try await LiveServer.run(tls: true) { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                let certificate = try #require(server.certificatePath)
                let pin = try #require(server.pin)

                let untrusted = await cli.run(["chatts"])
                #expect(untrusted.exitCode == 4, "a self-signed certificate is not trusted by default")

                #expect(await cli.run(["chatts", "--cert", certificate]).exitCode == 0)
                let pinned = await cli.run(["chatts", "--pin", pin])
                #expect(pinned.exitCode == 0, "\(pinned.errors)")

                let wrongPin = await cli.run(["chatts", "--pin", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "--cert", certificate])
                #expect(wrongPin.exitCode == 4)
                #expect(wrongPin.errors.first?.contains("refusing to connect") == true)

                let login = await cli.run(["login", "--cert", certificate], answer: emailCodeAnswers("ada@example.com", server: server))
                #expect(login.exitCode == 0)
            }
        }
    }

    /// The pin decides on every connection, whatever CA signed the certificate: a server whose certificate
    /// a CA the client trusts signed for another key is refused before any request reaches it, and a
    /// CA-signed certificate with the pinned key is accepted without trusting the CA.
    @Test func thePinHoldsWhateverCASignedTheCertificate() async throws {
        try await TestCertificateAuthority.withGenuineAndImpostor { genuine, impostor in
            try await LiveServer.run(serverCertificate: (impostor.certificate, impostor.key)) { server in
                try await withTemporaryDirectory { home in
                    let cli = CLI(server: server, home: home)
                    #expect(await cli.run(["chatts", "--cert", impostor.ca]).exitCode == 0, "the CA is trusted")
                    let before = server.requests.value
                    let refused = await cli.run(["chatts", "--cert", impostor.ca, "--pin", genuine.pin])
                    #expect(refused.exitCode == 4)
                    #expect(refused.errors.first?.contains("refusing to connect") == true, "\(refused.errors)")
                    #expect(server.requests.value == before, "no request was sent")
                }
            }
            try await LiveServer.run(serverCertificate: (genuine.certificate, genuine.key)) { server in
                try await withTemporaryDirectory { home in
                    let cli = CLI(server: server, home: home)
                    let pinned = await cli.run(["chatts", "--pin", genuine.pin])
                    #expect(pinned.exitCode == 0, "\(pinned.errors)")
                    #expect(server.requests.value == 1)
                    let login = await cli.run(["login", "--pin", genuine.pin], answer: emailCodeAnswers("ada@example.com", server: server))
                    #expect(login.exitCode == 0, "\(login.errors)")
                }
            }
        }
    }

    /// The pinned transport itself refuses a key swapped in after the first check: each connection checks.
    @Test func everyPinnedConnectionChecksThePin() async throws {
        try await TestCertificateAuthority.withGenuineAndImpostor { genuine, impostor in
            try await LiveServer.run(serverCertificate: (impostor.certificate, impostor.key)) { server in
                let transport = try PinnedTransport(pin: genuine.pin)
                await #expect(throws: PinCheck.Mismatch.self) {
                    try await transport.send(TransportRequest(method: "GET", url: server.baseURL.appendingPathComponent("getchatts")))
                }
                #expect(server.requests.value == 0)
            }
        }
    }
}

extension CLI {
    init(environment: [String: String]) {
        self.environment = environment
        clock = Date.init
    }
}

/// The spinner is drawn only for a person watching stderr, and leaves a clean line behind.
@Suite struct SpinnerTests {
    @Test func drawsWhileWaitingThenErasesItself() async throws {
        let frames = Mutex<[String]>([])
        var console = Console.current
        console.showsProgress = true
        console.writeProgress = { text in frames.withLock { $0.append(text) } }
        let value = try await Console.$current.withValue(console) {
            try await withSpinner("Posting…") {
                // The "network wait" lasts until two frames were drawn (or five seconds), however slow the machine.
                for _ in 0..<500 where frames.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
                return 42
            }
        }
        let drawn = frames.withLock { $0 }
        #expect(value == 42)
        #expect(drawn.dropLast().count >= 2 && drawn.dropLast().allSatisfy { $0.hasPrefix("\r") && $0.hasSuffix(" Posting…") })
        #expect(drawn.last == "\r\u{1B}[K")
    }

    @Test func drawsNothingForAScript() async throws {
        let frames = Mutex<[String]>([])
        var console = Console.current
        console.showsProgress = false
        console.writeProgress = { text in frames.withLock { $0.append(text) } }
        _ = try await Console.$current.withValue(console) {
            try await withSpinner("Posting…") { try await Task.sleep(for: .milliseconds(150)) }
        }
        #expect(frames.withLock { $0 }.isEmpty)
    }
}
