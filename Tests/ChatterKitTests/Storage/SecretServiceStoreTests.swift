#if os(Linux)
    import ChatterTestSupport
    import Foundation
    import Testing

    @testable import ChatterKit

    /// The Linux keyring store. Tests that need a running Secret Service skip (with a printed reason) when
    /// none is reachable; CI runs them under dbus-run-session with gnome-keyring (.ci/keyring-tests).
    @Suite struct SecretServiceStoreTests {
        @Test func withoutSecretToolTheKeyringIsUnavailableNotEmpty() async throws {
            let store = SecretServiceStore(service: "chatter.tests", tool: "/nonexistent/secret-tool")
            await #expect(throws: StorageError.self) { try await store.read(StoreKey.session) }
            do {
                _ = try await store.read(StoreKey.session)
            } catch {
                guard case .unavailable(let text) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(text.contains("libsecret-tools"))
            }
            #expect(await store.isReachable() == false)
        }

        @Test func keyringKeepsASessionAcrossClients() async throws {
            let service = "chatter.tests.\(UUID().uuidString)"
            try await KeyringAvailability.require(SecretServiceStore(service: service))
            try await LiveServer.run { server in
                try await server.client(store: SecretServiceStore(service: service)).signInByEmail(on: server)
                let next = server.client(store: SecretServiceStore(service: service))
                guard case .valid = await next.sessions.start() else {
                    Issue.record("not restored from the keyring")
                    return
                }
                #expect(try await next.me().email == "ada@example.com")
                try await next.sessions.signOut()
                #expect(try await SecretServiceStore(service: service).read(StoreKey.session) == nil)
            }
        }

        @Test func keyringStoreForTheTerminalClient() async throws {
            try await LiveServer.run { server in
                try await withTemporaryDirectory { home in
                    let cli = CLI(server: server, home: home, extra: ["CHATTER_STORE": "keyring"])
                    let service = "chatter:127.0.0.1_\(server.baseURL.port!)"
                    try await KeyringAvailability.require(SecretServiceStore(service: service))
                    #expect(await cli.run(["login"], answer: emailCodeAnswers("ada@example.com", server: server)).exitCode == 0)
                    #expect(try await SecretServiceStore(service: service).read(StoreKey.session) != nil)
                    #expect(FileManager.default.fileExists(atPath: home + "/sessions") == false, "no secret was written to files")
                    #expect(await cli.run(["whoami"]).exitCode == 0)
                    #expect(await cli.run(["logout"]).exitCode == 0)
                    #expect(try await SecretServiceStore(service: service).read(StoreKey.session) == nil)
                }
            }
        }

        @Test func keyringItemsAreSeparatedByService() async throws {
            let one = SecretServiceStore(service: "chatter.tests.\(UUID().uuidString)")
            let two = SecretServiceStore(service: "chatter.tests.\(UUID().uuidString)")
            try await KeyringAvailability.require(one)
            try await one.write(Data("one".utf8), for: StoreKey.session)
            #expect(try await two.read(StoreKey.session) == nil)
            try await one.delete(StoreKey.session)
        }
    }
#endif
