import ChatterTestSupport
import ChatterWire
import Foundation
import Logging
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// What operators do to accounts, on every backend.
extension StoreSuite {
    @Test(arguments: StoreBackend.available)
    func disablingAnAccountEndsItsSessionsAndRefusesNewOnesUntilEnabled(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let bystander = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "2"), "Bob")
            let (first, access, _) = session(for: user)
            try await store.createSession(first)
            try await store.createSession(session(for: user).0)
            try await store.createSession(session(for: bystander).0)
            try await store.storeHandoff(codeHash: [9, 9], userID: user.id, expiresAt: now.addingTimeInterval(60))

            #expect(try await store.setDisabled(true, userID: user.id, at: now) == 2)
            #expect(try await store.session(accessHash: access.hash, at: now) == .unknown)
            #expect(try await store.sessionCount() == 1, "the other account's session stays")
            #expect(try await store.redeemHandoff(codeHash: [9, 9], at: now) == nil, "a pending web handoff ends too")
            await #expect(throws: StoreError.accountDisabled) { try await store.createSession(session(for: user).0) }
            #expect(try await store.sessionCount() == 1)
            #expect(try await store.account(id: user.id)?.disabledAt == now)
            #expect(try await store.setDisabled(true, userID: user.id, at: now.addingTimeInterval(5)) == 0)
            #expect(try await store.account(id: user.id)?.disabledAt == now, "disabling again keeps the first time")

            #expect(try await store.setDisabled(false, userID: user.id, at: now) == 0)
            #expect(try await store.account(id: user.id)?.disabledAt == nil)
            try await store.createSession(session(for: user).0)
            #expect(try await store.sessionCount() == 2)

            #expect(try await store.setDisabled(true, userID: UUID(), at: now) == nil)
            await #expect(throws: StoreError.userGone) { try await store.createSession(session(for: User(id: UUID(), displayName: "Nobody")).0) }
        }
    }

    /// The rule "a disabled account has no session" holds however sign-ins and the disable interleave:
    /// every sign-in either went in before the disable (and was ended by it) or was refused.
    @Test(arguments: StoreBackend.available)
    func signInsRacingADisableLeaveNoSession(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            for round in 0..<3 {
                let user = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "race-\(round)"))
                let signIns = 60
                let (inserted, refused, ended) = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
                    for index in 0..<signIns {
                        group.addTask {
                            if index == signIns / 3 { return (0, 0, try await store.setDisabled(true, userID: user.id, at: now) ?? -1) }
                            do {
                                try await store.createSession(session(for: user).0)
                                return (1, 0, 0)
                            } catch StoreError.accountDisabled {
                                return (0, 1, 0)
                            }
                        }
                    }
                    return try await group.reduce((0, 0, 0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
                }
                #expect(inserted + refused == signIns - 1)
                #expect(ended == inserted, "round \(round): the disable ended every session inserted before it (\(ended) of \(inserted))")
                #expect(try await store.sessions(of: user.id).isEmpty, "round \(round): \(inserted) in, \(refused) refused")
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func accountsAreFoundByNameIdAndEmailWithTheSearchTextTakenLiterally(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let ada = try await store.signIn(ada, "Ada Lovelace", email: "Ada@Example.com", verified: true)
            let bob = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "2"), "Bob 100%", email: "bob@example.org")
            try await store.accountTransaction { tx in
                try await tx.insertIdentity(
                    Identity(key: .email("ada@work.example"), email: "ada@work.example", emailVerified: true), userID: ada.id,
                    at: now.addingTimeInterval(1))
            }

            #expect(try await store.findAccounts(matching: "lovelace", limit: 10).map(\.user.id) == [ada.id])
            #expect(try await store.findAccounts(matching: "EXAMPLE.ORG", limit: 10).map(\.user.id) == [bob.id])
            #expect(try await store.findAccounts(matching: String(bob.id.text.prefix(13)), limit: 10).map(\.user.id) == [bob.id])
            #expect(try await store.findAccounts(matching: "100%", limit: 10).map(\.user.id) == [bob.id])
            #expect(try await store.findAccounts(matching: "%", limit: 10).map(\.user.id) == [bob.id], "% is a character, not a wildcard")
            #expect(try await store.findAccounts(matching: "_", limit: 10).isEmpty)
            // A wildcard with a combining mark is one Character to Swift, but still a wildcard to SQL.
            let jose = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "3"), "Jose\u{301}")
            #expect(try await store.findAccounts(matching: "_\u{301}", limit: 10).isEmpty)
            #expect(try await store.findAccounts(matching: "e\u{301}", limit: 10).map(\.user.id) == [jose.id])
            #expect(Set(try await store.findAccounts(matching: nil, limit: 10).map(\.user.id)) == [ada.id, bob.id, jose.id])
            #expect(try await store.findAccounts(matching: nil, limit: 1).count == 1)

            let found = try #require(try await store.accounts(withEmail: "ada@example.com").first)
            #expect(found.user.id == ada.id && found.emails == ["Ada@Example.com", "ada@work.example"] && !found.isAdmin)
            #expect(try await store.accounts(withEmail: "ada@work.example").map(\.user.id) == [ada.id])
            #expect(try await store.accounts(withEmail: "nobody@example.com").isEmpty)

            #expect(try await !store.isAdmin(userID: ada.id))
            #expect(try await store.setAdmin(true, userID: ada.id))
            #expect(try await store.account(id: ada.id)?.isAdmin == true)
            #expect(try await store.isAdmin(userID: ada.id))
            #expect(try await store.account(id: bob.id)?.isAdmin == false)
            #expect(try await !store.isAdmin(userID: bob.id))
            #expect(try await store.setAdmin(false, userID: ada.id))
            #expect(try await store.account(id: ada.id)?.isAdmin == false)
            #expect(try await !store.isAdmin(userID: ada.id))
            #expect(try await !store.setAdmin(true, userID: UUID()))
            #expect(try await !store.isAdmin(userID: UUID()))
        }
    }

    @Test(arguments: StoreBackend.available)
    func theAuditLogIsReadByAccountKindAndTimeNewestFirstWithItsActor(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let operatorID = UUID()
            let events = [
                AuditEvent(at: now, event: "sign_in", userID: user.id, method: "google"),
                AuditEvent(at: now.addingTimeInterval(60), event: "account_disabled", userID: user.id, detail: "1 sessions ended", actor: .admin(operatorID)),
                AuditEvent(at: now.addingTimeInterval(120), event: "account_enabled", userID: user.id, actor: .commandLine(login: "root")),
                AuditEvent(at: now.addingTimeInterval(180), event: "sign_in", userID: UUID(), method: "password"),
            ]
            for event in events { try await store.record(event) }

            #expect(try await store.auditEvents(AuditFilter()) == events.reversed())
            #expect(try await store.auditEvents(AuditFilter(userID: user.id)) == Array(events.prefix(3).reversed()))
            #expect(try await store.auditEvents(AuditFilter(events: ["sign_in"])) == [events[3], events[0]])
            #expect(try await store.auditEvents(AuditFilter(events: ["account_disabled", "account_enabled"])) == [events[2], events[1]])
            #expect(try await store.auditEvents(AuditFilter(since: now.addingTimeInterval(60), until: now.addingTimeInterval(180))) == [events[2], events[1]])
            #expect(try await store.auditEvents(AuditFilter(userID: user.id, events: ["sign_in"], since: now.addingTimeInterval(1))).isEmpty)
            #expect(try await store.auditEvents(AuditFilter(limit: 1)) == [events[3]])
            #expect(try await store.auditEvents(userID: user.id) == Array(events.prefix(3)), "oldest first, as before")
        }
    }
}

/// Finding 8 of issue 24: a Google identity carrying boss@corp with `email_verified: false` became the account
/// `chatterd admin grant boss@corp` acted on, and deleting it removed boss's device tokens and live codes.
extension StoreSuite {
    @Test(arguments: StoreBackend.available)
    func administrationResolvesOnlyVerifiedAddressesAndDeletionClearsOnlyThose(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let boss = try await store.signIn(
                IdentityClaims(key: .email("boss@corp.example"), email: "boss@corp.example", emailVerified: true), fallbackName: "Boss", at: now,
                mayCreate: true)
            let claimer = try await store.signIn(
                IdentityClaims(
                    key: IdentityKey(issuer: "https://accounts.google.com", subject: "claims-boss"), email: "boss@corp.example", emailVerified: false),
                fallbackName: "Mallory", at: now, mayCreate: true)
            #expect(try await store.accounts(withEmail: "BOSS@corp.example").map(\.user.id) == [boss.id], "the claim alone does not resolve")
            let admin = AdminService(store: store, audit: AuditLog(store: store, now: { now }, logger: Logger(label: "test")), now: { now })
            #expect(try await admin.account("boss@corp.example").user.id == boss.id)

            try await store.storeDeviceToken(hash: [7, 7], email: "boss@corp.example", at: now, keeping: 5)
            _ = try await store.storeEmailCode(
                EmailCodeRecord(codeHash: [1, 2, 3], expiresAt: now.addingTimeInterval(600), guesses: 0, sentAt: now), for: "boss@corp.example",
                scope: "address", cooldown: 0)
            try await store.deleteUser(id: claimer.id)
            #expect(
                try await store.deviceTokenEmail(hash: [7, 7], issuedAfter: .distantPast) == "boss@corp.example",
                "boss's device survives the claimer's deletion")
            #expect(try await store.emailCodes(for: "boss@corp.example").count == 1, "and so does boss's live code")

            try await store.deleteUser(id: boss.id)
            #expect(try await store.deviceTokenEmail(hash: [7, 7], issuedAfter: .distantPast) == nil, "the account that verified it takes its devices along")
            #expect(try await store.emailCodes(for: "boss@corp.example").isEmpty)
        }
    }
}
