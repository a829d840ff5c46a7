import ChatterTestSupport
import ChatterWire
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Passkey storage on every backend: single-use challenges, one credential ID across accounts, counters
/// that only move forward, and never deleting an account's last way to sign in — each under parallel load.
extension StoreSuite {
    func passkey(_ id: [UInt8], of user: UUID, count: UInt32 = 0) -> PasskeyRecord {
        PasskeyRecord(
            credentialID: id, userID: user, publicKey: [0xA5, 1, 2], signCount: count, aaguid: [UInt8](repeating: 7, count: 16),
            backupEligible: true, backedUp: false, transports: ["internal", "hybrid"], attestationFormat: "none", name: "iPhone",
            createdAt: now)
    }

    /// An account with no identity and no password: a passkey is its only way in.
    func passkeyOnlyUser(_ store: any ChatterStore) async throws -> UUID {
        let id = UUID()
        try await store.accountTransaction { tx in try await tx.insertUser(id: id, displayName: "Pat", at: now) }
        return id
    }

    @Test(arguments: StoreBackend.available)
    func aPasskeyChallengeIsTakenOnceAndNeverAfterItExpires(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let challenge = PasskeyChallenge(
                hash: [1, 2, 3], purpose: .register, userID: user.id, email: nil, userHandle: [4, 5], userVerification: .required,
                expiresAt: now.addingTimeInterval(300))
            try await store.storePasskeyChallenge(challenge)
            #expect(try await store.takePasskeyChallenge(hash: [1, 2, 3], at: now) == challenge)
            #expect(try await store.takePasskeyChallenge(hash: [1, 2, 3], at: now) == nil, "single use")

            let signUp = PasskeyChallenge(
                hash: [9], purpose: .signUp, email: "ada@example.com", userVerification: .preferred, expiresAt: now.addingTimeInterval(300))
            try await store.storePasskeyChallenge(signUp)
            #expect(try await store.takePasskeyChallenge(hash: [9], at: now.addingTimeInterval(300)) == nil, "expired")
            #expect(try await store.takePasskeyChallenge(hash: [9], at: now) == nil, "an expired challenge is gone once presented")

            let old = PasskeyChallenge(hash: [8], purpose: .signIn, userVerification: .preferred, expiresAt: now)
            try await store.storePasskeyChallenge(old)
            try await store.purgeStaleRecords(StaleCutoffs(now: now, counters: now, deviceTokens: now, audit: nil))
            #expect(try await store.takePasskeyChallenge(hash: [8], at: now.addingTimeInterval(-10)) == nil, "the purge removed it")
        }
    }

    @Test(arguments: StoreBackend.available)
    func oneChallengePresentedByAHundredRequestsAtOnceIsTakenOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.storePasskeyChallenge(
                PasskeyChallenge(hash: [42], purpose: .signIn, userVerification: .preferred, expiresAt: now.addingTimeInterval(60)))
            let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 { group.addTask { try await store.takePasskeyChallenge(hash: [42], at: now) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(taken == 1)
        }
    }

    @Test(arguments: StoreBackend.available)
    func anAccountKeepsOneUserHandleWhateverIsOffered(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let handles = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for candidate in UInt8(0)..<20 { group.addTask { try await store.passkeyUserHandle(userID: user.id, candidate: [candidate, 1, 2]) } }
                return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
            }
            #expect(handles.count == 1, "concurrent first uses agree")
            let handle = try #require(handles.first)
            #expect(try await store.passkeyUserHandle(userID: user.id, candidate: [99]) == handle)
            #expect(try await store.passkeyUser(handle: handle) == user.id)
            #expect(try await store.passkeyUser(handle: [99]) == nil)
            await #expect(throws: StoreError.userGone) { try await store.passkeyUserHandle(userID: UUID(), candidate: [5]) }
        }
    }

    @Test(arguments: StoreBackend.available)
    func aCredentialIDIsRegisteredOnceAcrossAllAccounts(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let other = try await store.signIn(appleAda, "Mallory")
            #expect(try await store.insertPasskey(passkey([1, 1], of: user.id)) == true)
            #expect(try await store.insertPasskey(passkey([1, 1], of: other.id)) == false, "another account cannot claim it")
            #expect(try await store.insertPasskey(passkey([1, 1], of: user.id)) == false)
            #expect(try await store.passkey(credentialID: [1, 1]) == passkey([1, 1], of: user.id))
            #expect(try await store.passkeys(of: other.id).isEmpty)
            await #expect(throws: StoreError.userGone) { try await store.insertPasskey(passkey([2], of: UUID())) }

            let racing = try await withThrowingTaskGroup(of: Bool.self) { group in
                for owner in [user.id, other.id, user.id, other.id, user.id, other.id] {
                    group.addTask { try await store.insertPasskey(passkey([3, 3], of: owner)) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(racing == 1)
            #expect(try await store.passkeys(of: user.id).count + store.passkeys(of: other.id).count == 2)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aSignInReadsThePasskeyItsAccountAndTheHandleAtOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            _ = try await store.insertPasskey(passkey([4, 4], of: user.id))
            #expect(try await store.passkeyOwner(credentialID: [4, 4]) == nil, "no handle yet: nothing a sign-in could check")
            let handle = try await store.passkeyUserHandle(userID: user.id, candidate: [9, 9, 9])
            let owner = try #require(try await store.passkeyOwner(credentialID: [4, 4]))
            #expect(owner.passkey == (try await store.passkey(credentialID: [4, 4])))
            #expect(owner.userHandle == handle)
            #expect(owner.user == user)
            #expect(owner.account == (try await store.accountSummary(userID: user.id)), "the summary the sign-in answers with")
            #expect(try await store.passkeyOwner(credentialID: [4, 5]) == nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aSignInTakesItsChallengeAndReadsTheOwnerInOneStep(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            _ = try await store.insertPasskey(passkey([4, 4], of: user.id))
            _ = try await store.passkeyUserHandle(userID: user.id, candidate: [9, 9, 9])
            let owner = try #require(try await store.passkeyOwner(credentialID: [4, 4]))
            let challenge = PasskeyChallenge(
                hash: [6, 6], purpose: .signIn, userID: nil, email: nil, userHandle: nil, userVerification: .required,
                expiresAt: now.addingTimeInterval(300))
            try await store.storePasskeyChallenge(challenge)

            let first = try await store.takePasskeyChallenge(hash: [6, 6], readingOwnerOf: [4, 4], at: now)
            #expect(first == PasskeySignInLookup(challenge: challenge, owner: owner))
            let again = try await store.takePasskeyChallenge(hash: [6, 6], readingOwnerOf: [4, 4], at: now)
            #expect(again == PasskeySignInLookup(challenge: nil, owner: owner), "the challenge is single use; the owner is still read")

            // A registration's challenge keeps its account and handle through the combined step too.
            let registration = PasskeyChallenge(
                hash: [6, 7], purpose: .register, userID: user.id, email: "ada@example.com", userHandle: [1, 2], userVerification: .preferred,
                expiresAt: now.addingTimeInterval(300))
            try await store.storePasskeyChallenge(registration)
            let unknown = try await store.takePasskeyChallenge(hash: [6, 7], readingOwnerOf: [4, 5], at: now)
            #expect(unknown == PasskeySignInLookup(challenge: registration, owner: nil))

            try await store.storePasskeyChallenge(
                PasskeyChallenge(hash: [6, 8], purpose: .signIn, userVerification: .required, expiresAt: now.addingTimeInterval(300)))
            let expired = try await store.takePasskeyChallenge(hash: [6, 8], readingOwnerOf: [4, 4], at: now.addingTimeInterval(300))
            #expect(expired == PasskeySignInLookup(challenge: nil, owner: owner))
            #expect(try await store.takePasskeyChallenge(hash: [6, 8], at: now) == nil, "an expired challenge is gone once presented")

            try await store.storePasskeyChallenge(
                PasskeyChallenge(hash: [43], purpose: .signIn, userVerification: .preferred, expiresAt: now.addingTimeInterval(60)))
            let lookups = try await withThrowingTaskGroup(of: PasskeySignInLookup.self) { group in
                for _ in 0..<100 { group.addTask { try await store.takePasskeyChallenge(hash: [43], readingOwnerOf: [4, 4], at: now) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(lookups.count { $0.challenge != nil } == 1, "of a hundred sign-ins presenting one challenge at once, one takes it")
            #expect(lookups.allSatisfy { $0.owner == owner })
        }
    }

    @Test(arguments: StoreBackend.available)
    func aCounterOnlyMovesForwardEvenWhenAssertionsRace(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            _ = try await store.insertPasskey(passkey([5], of: user.id, count: 0))
            #expect(try await store.recordPasskeyUse(credentialID: [5], signCount: 0, backedUp: true, at: now), "0 and 0: no counter")
            #expect(try await store.passkey(credentialID: [5])?.backedUp == true)
            #expect(try await store.passkey(credentialID: [5])?.lastUsedAt == now)
            #expect(try await store.recordPasskeyUse(credentialID: [5], signCount: 3, backedUp: true, at: now))
            #expect(try await store.recordPasskeyUse(credentialID: [5], signCount: 3, backedUp: true, at: now) == false, "not forward")
            #expect(try await store.recordPasskeyUse(credentialID: [5], signCount: 2, backedUp: true, at: now) == false)
            #expect(try await store.recordPasskeyUse(credentialID: [5], signCount: 0, backedUp: true, at: now) == false)

            let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<30 { group.addTask { try await store.recordPasskeyUse(credentialID: [5], signCount: 10, backedUp: true, at: now) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 1, "one counter value is accepted once")
            #expect(try await store.passkey(credentialID: [5])?.signCount == 10)
            try await store.flagPasskey(credentialID: [5])
            #expect(try await store.passkey(credentialID: [5])?.flagged == true)

            // Many passkeys' sign-ins at once (on SQLite, one statement for those that arrive together).
            for index in 0..<20 { _ = try await store.insertPasskey(passkey([5, UInt8(index)], of: user.id, count: 4)) }
            let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    let count: UInt32 = index % 2 == 0 ? 5 : 4  // odd ones do not move forward
                    group.addTask { try await store.recordPasskeyUse(credentialID: [5, UInt8(index)], signCount: count, backedUp: false, at: now) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 10)
            for index in 0..<20 {
                #expect(try await store.passkey(credentialID: [5, UInt8(index)])?.signCount == (index % 2 == 0 ? 5 : 4))
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func aPasskeyIsRenamedAndDeletedOnlyByItsOwner(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let other = try await store.signIn(appleAda, "Mallory")
            _ = try await store.insertPasskey(passkey([6], of: user.id))
            #expect(try await store.renamePasskey(credentialID: [6], userID: other.id, name: "mine now") == false)
            #expect(try await store.renamePasskey(credentialID: [6], userID: user.id, name: "Work laptop"))
            #expect(try await store.passkey(credentialID: [6])?.name == "Work laptop")
            #expect(try await store.deletePasskey(credentialID: [6], userID: other.id) == .notFound)
            #expect(try await store.deletePasskey(credentialID: [6], userID: user.id) == .deleted, "the Google identity remains a way in")
            #expect(try await store.passkey(credentialID: [6]) == nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func theLastWayToSignInIsNeverDeletedEvenByTwoDeletionsAtOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            for round in 0..<5 {
                let user = try await passkeyOnlyUser(store)
                _ = try await store.insertPasskey(passkey([7, UInt8(round), 1], of: user))
                _ = try await store.insertPasskey(passkey([7, UInt8(round), 2], of: user))
                let outcomes = try await withThrowingTaskGroup(of: PasskeyDeletion.self) { group in
                    group.addTask { try await store.deletePasskey(credentialID: [7, UInt8(round), 1], userID: user) }
                    group.addTask { try await store.deletePasskey(credentialID: [7, UInt8(round), 2], userID: user) }
                    return try await group.reduce(into: [PasskeyDeletion]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == .deleted }.count == 1, "\(outcomes)")
                #expect(outcomes.filter { $0 == .lastWayToSignIn }.count == 1, "\(outcomes)")
                #expect(try await store.passkeys(of: user).count == 1)
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func deletingAnAccountTakesItsPasskeysAndHandle(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let handle = try await store.passkeyUserHandle(userID: user.id, candidate: [1, 2, 3])
            _ = try await store.insertPasskey(passkey([8], of: user.id))
            try await store.storePasskeyChallenge(
                PasskeyChallenge(hash: [8, 8], purpose: .register, userID: user.id, userVerification: .preferred, expiresAt: now.addingTimeInterval(60)))
            try await store.deleteUser(id: user.id)
            #expect(try await store.passkey(credentialID: [8]) == nil)
            #expect(try await store.passkeyUser(handle: handle) == nil)
            #expect(try await store.takePasskeyChallenge(hash: [8, 8], at: now) == nil, "a pending registration for the account ends with it")
        }
    }
}
