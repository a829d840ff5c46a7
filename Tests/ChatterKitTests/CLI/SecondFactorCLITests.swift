import ChatterTestSupport
import ExtrasBase64
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterKit
@testable import ChatterServer
@testable import ChatterStorage
@testable import chatter

/// `chatter mfa …` and `chatter login` with two-step sign-in, against a live chatterd.
@Suite struct SecondFactorCLITests {
    /// The code for `secret` after moving the server's clock on a step (so no step is used twice).
    static func code(_ secret: String, _ server: LiveServer) -> String? {
        guard let bytes = try? secret.base32decoded() else { return nil }
        server.clock.advance(by: 30)
        return TOTP(secret: bytes).code(step: TOTP.step(at: server.clock.now))
    }

    @Test func enableThenLoginAsksForTheCodeThenRecoveryCodesAndDisable() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                _ = try await server.client().requestEmailCode(email: "ada@example.com")
                try await server.client().signUp(
                    email: "ada@example.com", code: try #require(server.mail.lastCode(to: "ada@example.com")), password: "correct horse battery staple")
                #expect(await cli.run(["login", "--password", "--email", "ada@example.com"]) { _ in "correct horse battery staple" }.exitCode == 0)
                #expect(await cli.run(["mfa"]).text == "Two-step sign-in is off.")

                let enable = await cli.run(["mfa", "enable"]) { prompt, errors in
                    let key = errors.first { $0.hasPrefix("  key: ") }?.dropFirst(7)
                    return prompt.hasPrefix("Code") ? key.flatMap { Self.code(String($0), server) } : nil
                }
                #expect(enable.exitCode == 0, "\(enable.errors)")
                let secret = try #require(enable.errors.first { $0.hasPrefix("  key: ") }).dropFirst(7)
                #expect(enable.errors.contains { $0.contains("otpauth://totp/Chatter:ada@example.com?secret=\(secret)") })
                let codes = enable.text.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(codes.count == 10)
                #expect(await cli.run(["mfa", "status"]).text == "Two-step sign-in is on; 10 recovery codes left.")

                #expect(await cli.run(["logout"]).exitCode == 0)
                let login = await cli.run(["login", "--password", "--email", "ada@example.com"]) { prompt in
                    prompt.hasPrefix("Password") ? "correct horse battery staple" : prompt.hasPrefix("Code from") ? Self.code(String(secret), server) : nil
                }
                #expect(login.exitCode == 0, "\(login.errors)")
                #expect(login.prompts == ["Password: ", "Code from your authenticator app (or a recovery code): "])
                #expect(login.errors.contains("This account has two-step sign-in."))

                #expect(await cli.run(["logout"]).exitCode == 0)
                let tries = await cli.run(["login"]) { prompt in
                    if prompt.hasPrefix("Email") { return "ada@example.com" }
                    if prompt == "Code: " { return server.mail.lastCode(to: "ada@example.com") }
                    return prompt.hasPrefix("Code from") ? "000000" : nil
                }
                #expect(tries.exitCode == 1, "the third wrong code is the server's refusal")
                #expect(tries.errors.last == "chatter: That code is not right. Type the code your authenticator app shows now, or a recovery code.")
                #expect(tries.prompts.filter { $0.hasPrefix("Code from") }.count == 3, "\(tries.errors)")

                let recovered = await cli.run(["login"]) { prompt in
                    if prompt.hasPrefix("Email") { return "ada@example.com" }
                    if prompt == "Code: " { return server.mail.lastCode(to: "ada@example.com") }
                    return prompt.hasPrefix("Code from") ? codes[0] : nil
                }
                #expect(recovered.exitCode == 0, "\(recovered.errors)")
                let renewed = await cli.run(["mfa", "recovery-codes", "--json"]) { _ in Self.code(String(secret), server) }
                #expect(((renewed.json as? [String: Any])?["recoveryCodes"] as? [String])?.count == 10)
                #expect(await cli.run(["mfa", "disable"]) { _ in "000000" }.exitCode == 1, "a wrong code is the server's refusal")
                let off = await cli.run(["mfa", "disable"]) { _ in Self.code(String(secret), server) }
                #expect(off.exitCode == 0 && off.text == "Two-step sign-in is off.", "\(off.errors)")
            }
        }
    }

    @Test func logoutEverywhereAsksForTheCodeWhenTheLastOneIsOld() async throws {
        try await LiveServer.run { server in
            try await withTemporaryDirectory { home in
                let cli = CLI(server: server, home: home)
                #expect(await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server)).exitCode == 0)
                let enable = await cli.run(["mfa", "enable"]) { prompt, errors in
                    errors.first { $0.hasPrefix("  key: ") }.flatMap { Self.code(String($0.dropFirst(7)), server) }
                }
                let secret = try #require(enable.errors.first { $0.hasPrefix("  key: ") }).dropFirst(7)
                server.clock.advance(by: StepUp.window)
                let out = await cli.run(["logout", "--all"]) { _ in Self.code(String(secret), server) }
                #expect(out.exitCode == 0, "\(out.errors)")
                #expect(out.errors.contains("This needs your second factor."))
                #expect(out.text == "Signed out everywhere.")
            }
        }
    }
}
