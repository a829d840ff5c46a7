import ChatterTestSupport
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Second-factor storage on every backend: an enrolment confirmed once, each time step and recovery code
/// used once however many requests present it at once, waiting sign-ins taken once, and nothing left behind.
extension StoreSuite {
    /// An account with a confirmed authenticator (last step 100) and the recovery codes `codes`.
    func enrolled(_ store: any ChatterStore, codes: [[UInt8]] = [[1], [2], [3]]) async throws -> User {
        let user = try await store.signIn(ada)
        #expect(try await store.storePendingTOTP(userID: user.id, sealedSecret: [7, 7], at: now))
        #expect(try await store.confirmTOTP(userID: user.id, sealedSecret: [7, 7], resealed: [8, 8], step: 100, recoveryCodes: codes, at: now))
        return user
    }

    @Test(arguments: StoreBackend.available)
    func aPasswordAnEmailedCodeAsksForIsWrittenOnlyWithoutASecondFactor(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            #expect(try await store.storePendingTOTP(userID: user.id, sealedSecret: [1], at: now))
            #expect(try await store.setPasswordHashUnlessSecondFactor("first", userID: user.id, at: now), "an enrolment still waiting is no second factor")
            #expect(try await store.passwordHash(userID: user.id) == "first")
            #expect(try await store.confirmTOTP(userID: user.id, sealedSecret: [1], resealed: [2], step: 9, recoveryCodes: [], at: now))
            #expect(try await !store.setPasswordHashUnlessSecondFactor("second", userID: user.id, at: now))
            #expect(try await store.passwordHash(userID: user.id) == "first", "nothing written")
            let other = try await store.signIn(IdentityKey(issuer: "https://accounts.google.com", subject: "2"), "Bob")
            #expect(try await store.setPasswordHashUnlessSecondFactor("bob's", userID: other.id, at: now), "another account's authenticator is not this one's")
        }
    }

    @Test(arguments: StoreBackend.available)
    func aFirstPasswordIsAddedOnlyWhereNoneIsEvenWhenManyArriveAtOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let added = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 { group.addTask { try await store.addPasswordHash("hash \(index)", userID: user.id, at: now) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(added == 1, "one statement decides: one first password")
            let kept = try #require(try await store.passwordHash(userID: user.id))
            #expect(try await !store.addPasswordHash("later", userID: user.id, at: now))
            #expect(try await store.passwordHash(userID: user.id) == kept, "an added password never replaces one")
        }
    }

    @Test(arguments: StoreBackend.available)
    func anAddressMovesToOneAccountEvenWhenTwoClaimItAtOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let ada = try await store.signIn(.email("ada@example.com"), "Ada")
            let bob = try await store.signIn(.email("bob@example.com"), "Bob")
            #expect(try await store.changeEmailIdentity(userID: ada.id, to: "ada@example.com", at: now) == .unchanged)
            #expect(try await store.changeEmailIdentity(userID: ada.id, to: "bob@example.com", at: now) == .taken)
            let outcomes = try await withThrowingTaskGroup(of: EmailIdentityChange.self) { group in
                for user in [ada.id, bob.id, ada.id, bob.id] {
                    group.addTask { try await store.changeEmailIdentity(userID: user, to: "new@example.com", at: now) }
                }
                return try await group.reduce(into: [EmailIdentityChange]()) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .changed = $0 { true } else { false } }.count == 1, "\(outcomes)")
            let owner = try #require(try await store.linkedIdentity(.email("new@example.com"))?.user.id)
            let loser = owner == ada.id ? bob.id : ada.id
            #expect(try await store.identities(of: owner).map(\.key.subject) == ["new@example.com"], "the old address went")
            #expect(try await store.identities(of: loser).count == 1, "the other keeps its address")
            #expect(try await store.linkedIdentity(.email("new@example.com"))?.user.id == owner)
        }
    }

    @Test(arguments: StoreBackend.available)
    func anEnrolmentWaitsForItsCodeAndIsConfirmedOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            #expect(try await store.totp(userID: user.id) == nil)
            #expect(try await store.storePendingTOTP(userID: user.id, sealedSecret: [1], at: now))
            #expect(try await store.storePendingTOTP(userID: user.id, sealedSecret: [2], at: now), "a new enrolment replaces one waiting")
            #expect(try await store.totp(userID: user.id) == TOTPRecord(sealedSecret: [2], confirmedAt: nil, lastStep: 0, recoveryCodesLeft: 0))
            #expect(try await !store.useTOTPStep(userID: user.id, step: 5), "an unconfirmed authenticator accepts no code")
            #expect(try await !store.hasSecondFactor(userID: user.id), "nor is it a second factor")
            #expect(
                try await !store.confirmTOTP(userID: user.id, sealedSecret: [1], resealed: [1], step: 9, recoveryCodes: [[1]], at: now), "the replaced secret")
            let confirmed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await store.confirmTOTP(userID: user.id, sealedSecret: [2], resealed: [4], step: 9, recoveryCodes: [[1], [2]], at: now)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(confirmed == 1)
            #expect(
                try await store.totp(userID: user.id) == TOTPRecord(sealedSecret: [4], confirmedAt: now, lastStep: 9, recoveryCodesLeft: 2),
                "kept resealed from now on")
            #expect(try await store.hasSecondFactor(userID: user.id))
            #expect(try await !store.storePendingTOTP(userID: user.id, sealedSecret: [3], at: now), "a confirmed authenticator is never replaced")
            #expect(try await store.totp(userID: user.id)?.sealedSecret == [4])
            await #expect(throws: StoreError.userGone) { try await store.storePendingTOTP(userID: UUID(), sealedSecret: [1], at: now) }
        }
    }

    @Test(arguments: StoreBackend.available)
    func eachTimeStepIsAcceptedOnceEvenByAHundredRequestsAtOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await enrolled(store)
            #expect(try await !store.useTOTPStep(userID: user.id, step: 100), "the confirming code's step")
            let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 { group.addTask { try await store.useTOTPStep(userID: user.id, step: 101) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 1)
            #expect(try await !store.useTOTPStep(userID: user.id, step: 100), "an earlier step after a later one")
            #expect(try await store.useTOTPStep(userID: user.id, step: 102))
            #expect(try await store.totp(userID: user.id)?.lastStep == 102)
        }
    }

    @Test(arguments: StoreBackend.available)
    func eachRecoveryCodeIsUsedOnceAndRegeneratingEndsTheOldSet(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await enrolled(store)
            let used = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<50 { group.addTask { try await store.useRecoveryCode(userID: user.id, hash: [2]) } }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(used.compactMap { $0 } == [2], "one use, two codes left")
            #expect(try await store.useRecoveryCode(userID: user.id, hash: [9]) == nil)
            let other = try await store.signIn(appleAda)
            #expect(try await store.useRecoveryCode(userID: other.id, hash: [1]) == nil, "another account's code")
            #expect(try await store.replaceRecoveryCodes(userID: user.id, hashes: [[4], [5]]))
            #expect(try await store.useRecoveryCode(userID: user.id, hash: [1]) == nil, "the old set is gone")
            #expect(try await store.useRecoveryCode(userID: user.id, hash: [4]) == 1)
            #expect(try await !store.replaceRecoveryCodes(userID: other.id, hashes: [[6]]), "no authenticator, no codes")
            #expect(try await store.totp(userID: other.id) == nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aDisabledOrGoneAccountKeepsNoSignInWaiting(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            _ = try await store.setDisabled(true, userID: user.id, at: now)
            let step = PendingSecondStep(hash: [4, 4], userID: user.id, method: "password", email: nil, expiresAt: now.addingTimeInterval(300))
            await #expect(throws: StoreError.accountDisabled) { try await store.storeSecondStep(step) }
            #expect(try await store.secondStep(hash: [4, 4], at: now) == nil, "nothing kept")
            _ = try await store.setDisabled(false, userID: user.id, at: now)
            try await store.storeSecondStep(step)
            #expect(try await store.secondStep(hash: [4, 4], at: now) == step, "enabled again: kept")
            let gone = PendingSecondStep(hash: [5, 5], userID: UUID(), method: "password", email: nil, expiresAt: now.addingTimeInterval(300))
            await #expect(throws: StoreError.accountDisabled) { try await store.storeSecondStep(gone) }
        }
    }

    @Test(arguments: StoreBackend.available)
    func aWaitingSignInIsTakenOnceAndNeverAfterItExpires(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            let step = PendingSecondStep(hash: [1, 2], userID: user.id, method: "password", email: "ada@example.com", expiresAt: now.addingTimeInterval(300))
            try await store.storeSecondStep(step)
            #expect(try await store.secondStep(hash: [1, 2], at: now) == step)
            #expect(try await store.secondStep(hash: [1, 2], at: now) == step, "reading leaves it waiting")
            #expect(try await store.secondStep(hash: [1, 2], at: now.addingTimeInterval(300)) == nil, "expired")
            let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 { group.addTask { try await store.takeSecondStep(hash: [1, 2], at: now) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(taken == 1)
            #expect(try await store.secondStep(hash: [1, 2], at: now) == nil)

            try await store.storeSecondStep(PendingSecondStep(hash: [3], userID: user.id, method: "google", email: nil, expiresAt: now))
            #expect(try await store.takeSecondStep(hash: [3], at: now) == nil, "taken at its expiry")
        }
    }

    @Test(arguments: StoreBackend.available)
    func turningItOffOrDeletingTheAccountLeavesNothingBehind(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await enrolled(store)
            try await store.storeSecondStep(
                PendingSecondStep(hash: [5], userID: user.id, method: "password", email: nil, expiresAt: now.addingTimeInterval(60)))
            #expect(try await store.deleteSecondFactor(userID: user.id))
            #expect(try await !store.deleteSecondFactor(userID: user.id))
            #expect(try await store.totp(userID: user.id) == nil)
            #expect(try await store.secondStep(hash: [5], at: now) == nil, "sign-ins waiting for a code are gone too")
            #expect(try await store.useRecoveryCode(userID: user.id, hash: [1]) == nil)

            let again = try await enrolled(store)
            try await store.storeSecondStep(
                PendingSecondStep(hash: [6], userID: again.id, method: "password", email: nil, expiresAt: now.addingTimeInterval(60)))
            try await store.deleteUser(id: again.id)
            #expect(try await store.totp(userID: again.id) == nil)
            #expect(try await store.secondStep(hash: [6], at: now) == nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func thePurgeForgetsExpiredSignInsAndEnrolmentsNeverConfirmed(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let confirmed = try await enrolled(store)
            let other = try await store.signIn(appleAda)
            #expect(try await store.storePendingTOTP(userID: other.id, sealedSecret: [1], at: now))
            try await store.storeSecondStep(PendingSecondStep(hash: [7], userID: other.id, method: "apple", email: nil, expiresAt: now))
            try await store.storeSecondStep(PendingSecondStep(hash: [8], userID: other.id, method: "apple", email: nil, expiresAt: now.addingTimeInterval(60)))
            try await store.purgeStaleRecords(StaleCutoffs(now: now, counters: now.addingTimeInterval(1), deviceTokens: .distantPast, audit: nil))
            #expect(try await store.totp(userID: other.id) == nil, "an enrolment older than the cutoff, never confirmed")
            #expect(try await store.totp(userID: confirmed.id)?.confirmedAt == now, "a confirmed one stays")
            #expect(try await store.takeSecondStep(hash: [7], at: now.addingTimeInterval(-10)) == nil, "expired: purged")
            #expect(try await store.takeSecondStep(hash: [8], at: now) != nil)
        }
    }

    @Test(arguments: StoreBackend.available)
    func sessionsKeepTheSecondFactorTheirSignInPassed(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await store.signIn(ada)
            var (two, _, _) = session(for: user)
            two.secondFactor = SecondFactorKind.totp.rawValue
            try await store.createSession(two)
            let (one, _, _) = session(for: user)
            try await store.createSession(one)
            let listed = Dictionary(uniqueKeysWithValues: try await store.sessions(of: user.id).map { ($0.id, $0.secondFactor) })
            #expect(listed[two.id] == "totp")
            #expect(listed[one.id] == .some(nil))
        }
    }

    @Test(arguments: StoreBackend.available)
    func eachGuessIsCountedOnceEvenAmongTwoHundredAtOnceAndARightCodeTakesItsBack(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await enrolled(store)
            #expect(try await store.takeGuess(userID: UUID(), window: 900, at: now) == nil, "no authenticator, nothing counted")
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 { group.addTask { try #require(try await store.takeGuess(userID: user.id, window: 900, at: now)).guesses } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.sorted() == Array(1...200), "each guess sees its own count")
            let next = try #require(try await store.takeGuess(userID: user.id, window: 900, at: now))
            #expect(next == TOTPGuess(sealedSecret: [8, 8], lastStep: 100, guesses: 201, dayGuesses: 201))
            #expect(try await store.useTOTPStep(userID: user.id, step: 101))
            #expect(try await store.takeGuess(userID: user.id, window: 900, at: now)?.guesses == 201, "the right code took its guess back")
            #expect(try await store.useRecoveryCode(userID: user.id, hash: [1]) == 2)
            #expect(try await store.takeGuess(userID: user.id, window: 900, at: now)?.guesses == 201, "so did the recovery code")
            let later = try #require(try await store.takeGuess(userID: user.id, window: 900, at: now.addingTimeInterval(901)))
            #expect(later.guesses == 1 && later.dayGuesses == 202, "a new window starts at one; the day goes on")
            #expect(try await store.takeGuess(userID: user.id, window: 900, at: now.addingTimeInterval(86_401))?.dayGuesses == 1)
        }
    }

    @Test(arguments: StoreBackend.available)
    func anAppCodeUsesItsStepAndTakesTheWaitingSignInTogetherOnce(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let user = try await enrolled(store)
            let waiting = PendingSecondStep(hash: [4, 2], userID: user.id, method: "password", email: nil, expiresAt: now.addingTimeInterval(300))
            try await store.storeSecondStep(waiting)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        let (used, taken) = try await store.useTOTPStep(userID: user.id, step: 101, completing: [4, 2], at: now)
                        #expect(used == (taken != nil), "whoever uses the step takes the sign-in")
                        return used
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(outcomes == 1)
            #expect(try await store.secondStep(hash: [4, 2], at: now) == nil)
            let (used, taken) = try await store.useTOTPStep(userID: user.id, step: 102, completing: [4, 2], at: now)
            #expect(used && taken == nil, "the step is used even when the sign-in had gone")
            let other = try await store.signIn(appleAda)
            try await store.storeSecondStep(PendingSecondStep(hash: [9], userID: other.id, method: "apple", email: nil, expiresAt: now.addingTimeInterval(60)))
            #expect(try await store.useTOTPStep(userID: user.id, step: 103, completing: [9], at: now).taken == nil, "another account's waiting sign-in")
            #expect(try await store.secondStep(hash: [9], at: now) != nil)
        }
    }
}
