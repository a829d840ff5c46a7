import ChatterTestSupport
import ChatterWire
import ExtrasBase64
import Foundation
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The second factor through the native API on every database: enrolment confirmed by a first code, the
/// second step of every sign-in method, recovery codes, turning it off, and the limits under parallel load.
@Suite(.tags(.bothDatabases)) struct SecondFactorTests {
    static let password = "correct horse battery staple"
    static let email = "ada@example.com"

    /// A password account for `email`, signed in.
    func signUp(_ h: Harness, _ email: String = email) async throws -> SessionResponse {
        let code = try await h.requestCode(email)
        let response = try await h.post(NativePath.passwordSignUp, PasswordSignUpRequest(email: email, code: code, password: Self.password))
        try #require(response.status == .ok, "sign-up failed: \(String(buffer: response.body))")
        return try h.decode(SessionResponse.self, response)
    }

    /// Turns the second factor on for the session's account; its authenticator and recovery codes.
    func enrol(_ h: Harness, _ session: SessionResponse) async throws -> (TOTP, [String]) {
        let enrolment = try h.decode(TOTPEnrolment.self, try await h.post(NativePath.secondFactorEnrol, json: "", bearer: session.accessToken))
        let totp = TOTP(secret: try enrolment.secret.base32decoded())
        let confirmed = try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: code(totp, h)), bearer: session.accessToken)
        try #require(confirmed.status == .ok, "confirming failed: \(String(buffer: confirmed.body))")
        return (totp, try h.decode(RecoveryCodes.self, confirmed).recoveryCodes)
    }

    /// The app's code now; the clock moves on a step first, so the step was never used.
    func code(_ totp: TOTP, _ h: Harness) -> String {
        h.clock.advance(by: TOTP.period)
        return totp.code(step: TOTP.step(at: h.clock.now))
    }

    /// A password sign-in that must stop at the second step; its waiting sign-in.
    func firstFactor(_ h: Harness, _ email: String = email) async throws -> SecondFactorChallenge {
        let response = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: Self.password))
        #expect(response.status == .forbidden)
        let body = try h.error(response)
        #expect(body.code == .secondFactorRequired)
        return try #require(body.secondFactor)
    }

    @Test(arguments: StoreBackend.available)
    func enrolThenSignInWithPasswordAndCode(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await signUp(h)
            let before = try h.decode(SecondFactorStatus.self, try await h.get(NativePath.secondFactor, bearer: session.accessToken))
            #expect(before == SecondFactorStatus(enabled: false, pending: false, recoveryCodesLeft: 0, enabledAt: nil))

            let enrolment = try h.decode(TOTPEnrolment.self, try await h.post(NativePath.secondFactorEnrol, json: "", bearer: session.accessToken))
            #expect(enrolment.uri.hasPrefix("otpauth://totp/Chatter:ada@example.com?secret=\(enrolment.secret)&issuer=Chatter"))
            let pending = try h.decode(SecondFactorStatus.self, try await h.get(NativePath.secondFactor, bearer: session.accessToken))
            #expect(pending.pending && !pending.enabled)
            #expect(
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: Self.email, password: Self.password)).status == .ok,
                "an enrolment not yet confirmed asks for nothing")

            let totp = TOTP(secret: try enrolment.secret.base32decoded())
            let wrong = try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: "000000"), bearer: session.accessToken)
            #expect(wrong.status == .unauthorized)
            #expect(try h.error(wrong).code == .invalidSecondFactor)
            let confirmed = try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: code(totp, h)), bearer: session.accessToken)
            #expect(confirmed.status == .ok)
            let codes = try h.decode(RecoveryCodes.self, confirmed).recoveryCodes
            #expect(codes.count == 10)
            #expect(h.mail.messages.last?.subject == "A second factor is on for your Chatter account")
            let after = try h.decode(SecondFactorStatus.self, try await h.get(NativePath.secondFactor, bearer: session.accessToken))
            #expect(after.enabled && after.recoveryCodesLeft == 10 && after.enabledAt == h.clock.now.timeIntervalSince1970)
            let again = try await h.post(NativePath.secondFactorEnrol, json: "", bearer: session.accessToken)
            #expect(again.status == .conflict)
            #expect(try h.error(again).code == .secondFactorExists)

            let waiting = try await firstFactor(h)
            #expect(waiting.methods == ["totp", "recovery_code"])
            let sessionsBefore = try await h.store.sessionCount()
            let bad = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: "123456"))
            #expect(bad.status == .unauthorized)
            #expect(try h.error(bad).code == .invalidSecondFactor)
            #expect(try await h.store.sessionCount() == sessionsBefore, "a wrong code starts no session")
            let right = code(totp, h)
            let good = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: right))
            #expect(good.status == .ok, "a wrong code leaves the sign-in waiting for the right one")
            let signedIn = try h.decode(SessionResponse.self, good)
            #expect(signedIn.user.id == session.user.id)
            #expect(signedIn.deviceToken != nil, "the address the password proved gets its device token now")
            let listed = try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: signedIn.accessToken))
            #expect(listed.first { $0.current }?.secondFactor == "totp")
            let audit = try await h.store.auditEvents(userID: UUID(uuidString: session.user.id))
            #expect(audit.last?.event == "sign_in" && audit.last?.detail == "second factor: totp" && audit.last?.method == "password")

            let replay = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: right))
            #expect(replay.status == .unauthorized, "a waiting sign-in completes once")
            #expect(try h.error(replay).code == .secondStepExpired)
            let reused = try await firstFactor(h)
            let sameStep = try await h.post(NativePath.secondStep, SecondStepRequest(token: reused.token, code: right))
            #expect(sameStep.status == .unauthorized, "a step's code is accepted once")

            h.clock.advance(by: SecondFactorService.stepLifetime)
            let expired = try await h.post(NativePath.secondStep, SecondStepRequest(token: reused.token, code: code(totp, h)))
            #expect(expired.status == .unauthorized)
            #expect(try h.error(expired).code == .secondStepExpired)
        }
    }

    @Test(arguments: StoreBackend.available)
    func everyOneFactorSignInStopsAtTheSecondStep(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await h.nativeSignIn(email: Self.email)
            let (totp, _) = try await enrol(h, session)

            let google = try await h.post(
                NativePath.google,
                GoogleSignInRequest(
                    idToken: try h.issuer.sign(TestIssuer.claims(subject: "1000001", name: "Ada", now: h.clock.now)), clientID: TestIssuer.clientID))
            #expect(google.status == .forbidden)
            #expect(try h.error(google).secondFactor != nil)
            let completed = try await h.post(
                NativePath.secondStep, SecondStepRequest(token: try #require(try h.error(google).secondFactor).token, code: code(totp, h)))
            #expect(completed.status == .ok)
            #expect(try h.decode(SessionResponse.self, completed).deviceToken == nil, "Google proved no address here")

            let apple = try await h.post(
                NativePath.apple,
                AppleSignInRequest(
                    identityToken: try h.appleIssuer.sign([
                        "iss": "https://appleid.apple.com", "aud": Harness.appleClientID, "sub": "001.ada",
                        "iat": Int(h.clock.now.timeIntervalSince1970), "exp": Int(h.clock.now.timeIntervalSince1970) + 600,
                        "email": "1000001@example.com", "email_verified": "true",
                    ]), rawNonce: nil))
            #expect(apple.status == .forbidden, "Apple, linked to the account by its verified address")
            #expect(try h.error(apple).secondFactor != nil)

            let course = try await h.post(
                "/adduser",
                AddUserRequest(clientID: TestIssuer.clientID, idToken: try h.issuer.sign(TestIssuer.claims(subject: "1000001", name: "Ada", now: h.clock.now))))
            #expect(course.status == .forbidden)
            #expect(try h.error(course).code == .secondFactorRequired)
            #expect(try h.error(course).secondFactor == nil, "the course API has no second step")

            // An emailed code proves the address, which the password account below holds.
            let (_, _) = try await enrol(h, try await signUp(h, "bob@example.com"))
            let counts = try await h.counts()
            let passkey = try await h.post(
                NativePath.passkeySignUpOptions, PasskeySignUpOptionsRequest(email: "bob@example.com", code: try await h.requestCode("bob@example.com")))
            #expect(passkey.status == .forbidden, "an emailed code cannot add a passkey")
            #expect(try h.error(passkey).code == .secondFactorRequired)
            #expect(try await h.counts() == counts)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aRecoveryCodeWorksOnceIsAuditedAndMailed(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await signUp(h)
            let (_, codes) = try await enrol(h, session)
            let waiting = try await firstFactor(h)
            let typed = codes[3].lowercased().replacingOccurrences(of: "-", with: " ")
            let used = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: typed))
            #expect(used.status == .ok)
            let signedIn = try h.decode(SessionResponse.self, used)
            #expect(
                try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: signedIn.accessToken)).first { $0.current }?.secondFactor
                    == "recovery_code")
            #expect(h.mail.messages.last?.subject == "A recovery code was used for your Chatter account")
            #expect(h.mail.messages.last?.body.contains("9 are left") == true)
            #expect(
                try await h.store.auditEvents(userID: UUID(uuidString: session.user.id)).contains { $0.event == "recovery_code_used" && $0.detail == "9 left" })
            let status = try h.decode(SecondFactorStatus.self, try await h.get(NativePath.secondFactor, bearer: signedIn.accessToken))
            #expect(status.recoveryCodesLeft == 9)

            let again = try await firstFactor(h)
            #expect(try await h.post(NativePath.secondStep, SecondStepRequest(token: again.token, code: codes[3])).status == .unauthorized, "used up")
            #expect(try await h.post(NativePath.secondStep, SecondStepRequest(token: again.token, code: codes[4])).status == .ok)
        }
    }

    @Test(arguments: StoreBackend.available)
    func newRecoveryCodesAndTurningOffTakeACurrentCode(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await signUp(h)
            let (totp, old) = try await enrol(h, session)
            let refused = try await h.post(NativePath.recoveryCodes, SecondFactorCodeRequest(code: "000000"), bearer: session.accessToken)
            #expect(refused.status == .unauthorized)
            let renewed = try await h.post(NativePath.recoveryCodes, SecondFactorCodeRequest(code: code(totp, h)), bearer: session.accessToken)
            let fresh = try h.decode(RecoveryCodes.self, renewed).recoveryCodes
            #expect(Set(fresh).isDisjoint(with: old))
            let waiting = try await firstFactor(h)
            #expect(try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: old[0])).status == .unauthorized, "the old set ended")

            #expect(
                try await h.post(NativePath.secondFactorDisable, SecondFactorCodeRequest(code: "000000"), bearer: session.accessToken).status == .unauthorized)
            let off = try await h.post(NativePath.secondFactorDisable, SecondFactorCodeRequest(code: fresh[0]), bearer: session.accessToken)
            #expect(off.status == .noContent)
            #expect(h.mail.messages.last?.subject == "The second factor is off for your Chatter account")
            #expect(
                try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: code(totp, h))).status == .unauthorized,
                "sign-ins waiting for a code end with it")
            #expect(try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: Self.email, password: Self.password)).status == .ok)
            let twice = try await h.post(NativePath.secondFactorDisable, SecondFactorCodeRequest(code: "123456"), bearer: session.accessToken)
            #expect(twice.status == .conflict)
            #expect(try h.error(twice).code == .noSecondFactor)
            let anonymous = try await h.post(NativePath.secondFactorDisable, SecondFactorCodeRequest(code: "123456"))
            #expect(anonymous.status == .unauthorized)
        }
    }

    /// One right code sent by a hundred requests at once: the step is used once, so one session starts.
    @Test(arguments: StoreBackend.available)
    func aRightCodeSentAHundredTimesAtOnceStartsOneSession(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await signUp(h)
            let (totp, _) = try await enrol(h, session)
            let waiting = try await firstFactor(h)
            let right = code(totp, h)
            let before = try await h.store.sessionCount()
            let answers = try await h.parallel(100) { _ in try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: right)) }
            #expect(answers.count(.ok) == 1)
            #expect(answers.count(.internalServerError) == 0)
            #expect(try await h.store.sessionCount() == before + 1)
        }
    }

    /// Two hundred wrong codes at once: each is counted before it is compared, so at most the limit are.
    @Test(arguments: StoreBackend.available)
    func twoHundredWrongCodesAtOnceEvaluateAtMostTheLimit(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await signUp(h)
            let (totp, _) = try await enrol(h, session)
            let waiting = try await firstFactor(h)
            let right = code(totp, h)
            let wrong = right == "000000" ? "000001" : "000000"
            let answers = try await h.parallel(200) { _ in try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: wrong)) }
            #expect(answers.count(.unauthorized) <= SecondFactorService.guessesPerWindow)
            #expect(answers.count(.unauthorized) + answers.count(.tooManyRequests) == 200)
            let failures = try await h.store.auditEvents(userID: UUID(uuidString: session.user.id)).filter { $0.event == "second_factor_failed" }
            #expect(failures.count == answers.count(.unauthorized))
            let locked = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: right))
            #expect(locked.status == .tooManyRequests, "even the right code waits out the limit")
            h.clock.advance(by: SecondFactorService.guessWindow)
            #expect(
                try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: code(totp, h))).status == .unauthorized,
                "the waiting sign-in expired meanwhile")
        }
    }

    @Test func malformedBodiesAreRefusedAndChangeNothing() async throws {
        try await Harness.run { h async throws in
            let session = try await signUp(h)
            let (_, _) = try await enrol(h, session)
            let counts = try await h.counts()
            for body in ["", "{}", "{\"token\":1,\"code\":\"1\"}", "[]", "{\"token\":\"\(String(repeating: "A", count: 5000))\",\"code\":\"123456\"}"] {
                let answer = try await h.post(NativePath.secondStep, json: body)
                #expect((400..<500).contains(answer.status.code), "\(body.prefix(40)): \(answer.status)")
            }
            for token in ["", "!!!!", Base64URL.encode([UInt8](repeating: 1, count: 32)), Base64URL.encode([1, 2, 3])] {
                let answer = try await h.post(NativePath.secondStep, SecondStepRequest(token: token, code: "123456"))
                #expect(answer.status == .unauthorized)
                #expect(try h.error(answer).code == .secondStepExpired)
            }
            for code in ["", "１２３４５６", String(repeating: "9", count: 10_000), "123456\u{0}"] {
                let answer = try await h.post(NativePath.secondFactorDisable, SecondFactorCodeRequest(code: code), bearer: session.accessToken)
                #expect([401, 429].contains(answer.status.code), "\(code.prefix(10).debugDescription): \(answer.status)")
            }
            #expect(try await h.counts() == counts)
            #expect(try await h.store.totp(userID: try #require(UUID(uuidString: session.user.id)))?.confirmedAt != nil)
        }
    }
}

/// Step-up: what matters takes a second factor passed in the last ten minutes, on accounts that have one.
@Suite(.tags(.bothDatabases)) struct StepUpTests {
    let base = SecondFactorTests()

    @Test(arguments: StoreBackend.available)
    func actionsThatMatterTakeARecentSecondFactor(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await base.signUp(h)
            let (totp, _) = try await base.enrol(h, session)
            let token = session.accessToken
            let fresh = try await h.post(NativePath.passkeyRegisterOptions, json: "", bearer: token)
            #expect(fresh.status == .ok, "confirming the app counts as a step-up for the session that did it")

            h.clock.advance(by: StepUp.window)
            let refusals: [(String, LiveResponse)] = [
                ("add a passkey", try await h.post(NativePath.passkeyRegisterOptions, json: "", bearer: token)),
                (
                    "change the password",
                    try await h.post(
                        NativePath.passwordChange,
                        PasswordChangeRequest(currentPassword: SecondFactorTests.password, newPassword: "a whole new passphrase here"), bearer: token)
                ),
                ("sign out everywhere", try await h.post(NativePath.signOut, SignOutRequest(all: true), bearer: token)),
                ("delete the account", try await h.delete(NativePath.me, bearer: token)),
                ("end another session", try await h.delete(NativePath.sessions + "/" + UUID().uuidString, bearer: token)),
            ]
            for (action, answer) in refusals {
                #expect(answer.status == .forbidden, "\(action)")
                #expect(try h.error(answer).code == .stepUpRequired, "\(action)")
            }
            #expect(try await h.store.userCount() == 1)
            #expect(
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password)).status
                    == .forbidden,
                "the password is unchanged (the second step still asks)")

            let wrong = try await h.post(NativePath.stepUp, SecondFactorCodeRequest(code: "000000"), bearer: token)
            #expect(wrong.status == .unauthorized)
            #expect(try h.error(wrong).message.contains("not right"))
            let current = base.code(totp, h)
            #expect(try await h.post(NativePath.stepUp, SecondFactorCodeRequest(code: current), bearer: token).status == .noContent)
            // The same code again (typed at sign-in moments ago, say): never taken twice, and the answer says to wait.
            let spent = try await h.post(NativePath.stepUp, SecondFactorCodeRequest(code: current), bearer: token)
            #expect(spent.status == .unauthorized)
            let said = try h.error(spent)
            #expect(said.code == .invalidSecondFactor && said.message.contains("used already") && said.message.contains("next one"))
            let listed = try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: token))
            #expect(listed.first { $0.current }?.secondFactor == "totp")
            #expect(try await h.delete(NativePath.me, bearer: token).status == .noContent)
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Never asked for a code; but what changes how the account signs in (adding a passkey) takes a recent sign-in.
    @Test func accountsWithoutASecondFactorAreNeverAskedForACode() async throws {
        try await Harness.run { h async throws in
            let session = try await base.signUp(h)
            #expect(try await h.post(NativePath.passkeyRegisterOptions, json: "", bearer: session.accessToken).status == .ok)
            h.clock.advance(by: StepUp.window + 1)
            let old = try await h.post(NativePath.passkeyRegisterOptions, json: "", bearer: session.accessToken)
            #expect(old.status == .forbidden)
            #expect(try h.error(old).code == .signInAgain)
            #expect(try await h.delete(NativePath.me, bearer: session.accessToken).status == .noContent)
            let anonymous = try await h.post(NativePath.stepUp, SecondFactorCodeRequest(code: "123456"))
            #expect(anonymous.status == .unauthorized)
        }
    }
}

/// An operator resets the second factor of an owner who lost both the app and the codes.
@Suite(.tags(.bothDatabases)) struct SecondFactorResetTests {
    @Test(arguments: StoreBackend.available)
    func anOperatorResetIsAuditedMailedAndLeavesOneFactor(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let base = SecondFactorTests()
            let session = try await base.signUp(h)
            _ = try await base.enrol(h, session)
            let id = try #require(UUID(uuidString: session.user.id))
            let waiting = try await base.firstFactor(h)
            try await h.services.admin.resetSecondFactor(userID: id, by: .commandLine(login: "root"))
            let event = try #require(try await h.store.auditEvents(userID: id).last)
            #expect(event.event == "admin_second_factor_reset" && event.actor == .commandLine(login: "root"))
            #expect(h.mail.messages.last?.to == SecondFactorTests.email)
            #expect(h.mail.messages.last?.subject == "Two-step sign-in was reset for your Chatter account")
            #expect(try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: "123456")).status == .unauthorized)
            #expect(
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password)).status
                    == .ok)
            await #expect(throws: AdminService.Failure.noSecondFactor(id)) {
                try await h.services.admin.resetSecondFactor(userID: id, by: .commandLine(login: "root"))
            }
            await #expect(throws: AdminService.Failure.noSuchAccount(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)).text)) {
                try await h.services.admin.resetSecondFactor(
                    userID: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)), by: .commandLine(login: "root"))
            }
        }
    }
}

/// A device that passed the second step and asked to be remembered skips it, never past a password change.
@Suite(.tags(.bothDatabases)) struct RememberedDeviceTests {
    let base = SecondFactorTests()

    @Test(arguments: StoreBackend.available)
    func aRememberedDeviceSkipsTheStepUntilThePasswordChanges(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await base.signUp(h)
            let (totp, _) = try await base.enrol(h, session)
            let device = try #require(session.deviceToken)
            func signIn(_ device: String?) async throws -> LiveResponse {
                try await h.post(
                    NativePath.passwordSignIn, PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password, deviceToken: device))
            }
            let waiting = try h.error(try await signIn(device)).secondFactor
            let passed = try await h.post(
                NativePath.secondStep,
                SecondStepRequest(token: try #require(waiting).token, code: base.code(totp, h), deviceToken: device, rememberDevice: true))
            #expect(try h.decode(SessionResponse.self, passed).deviceToken == device, "the device keeps its token")

            let again = try await signIn(device)
            #expect(again.status == .ok, "remembered: no second step")
            let remembered = try h.decode(SessionResponse.self, again)
            #expect(
                try h.decode([SessionInfo].self, try await h.get(NativePath.sessions, bearer: remembered.accessToken)).first { $0.current }?.secondFactor
                    == "remembered_device")
            #expect(try await signIn(nil).status == .forbidden, "another device is asked")
            #expect(try await h.delete(NativePath.me, bearer: remembered.accessToken).status == .forbidden, "a remembered device is no step-up")

            h.clock.advance(by: 29 * 86_400)
            #expect(try await signIn(device).status == .ok)
            h.clock.advance(by: 86_400)
            #expect(try await signIn(device).status == .forbidden, "remembered for thirty days")

            let waiting2 = try #require(try h.error(try await signIn(device)).secondFactor)
            let fresh = try h.decode(
                SessionResponse.self,
                try await h.post(
                    NativePath.secondStep, SecondStepRequest(token: waiting2.token, code: base.code(totp, h), deviceToken: device, rememberDevice: true)))
            #expect(try await signIn(device).status == .ok)
            let changed = try await h.post(
                NativePath.passwordChange, PasswordChangeRequest(currentPassword: SecondFactorTests.password, newPassword: "another long passphrase"),
                bearer: fresh.accessToken)
            #expect(changed.status == .noContent)
            let after = try await h.post(
                NativePath.passwordSignIn, PasswordSignInRequest(email: SecondFactorTests.email, password: "another long passphrase", deviceToken: device))
            #expect(after.status == .forbidden, "a password change ends every remembered device")
        }
    }

    @Test func theSettingTurnsRememberingOff() async throws {
        try await Harness.run(configure: { $0.rememberDeviceDays = 0 }) { h async throws in
            let session = try await base.signUp(h)
            let (totp, _) = try await base.enrol(h, session)
            let device = try #require(session.deviceToken)
            let request = PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password, deviceToken: device)
            let waiting = try #require(try h.error(try await h.post(NativePath.passwordSignIn, request)).secondFactor)
            _ = try await h.post(
                NativePath.secondStep, SecondStepRequest(token: waiting.token, code: base.code(totp, h), deviceToken: device, rememberDevice: true))
            #expect(try await h.post(NativePath.passwordSignIn, request).status == .forbidden)
        }
    }
}

/// Every one-factor way into an address's account asks: the emailed code, a reset, a sign-up on the address.
@Suite(.tags(.bothDatabases)) struct SecondStepEverywhereTests {
    let base = SecondFactorTests()

    @Test(arguments: StoreBackend.available)
    func theEmailedCodeAResetAndASignUpOnTheAddressAllAsk(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await base.signUp(h)
            let (totp, _) = try await base.enrol(h, session)
            let email = SecondFactorTests.email
            let before = try await h.store.sessionCount()

            let verified = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: email, code: try await h.requestCode(email)))
            #expect(verified.status == .forbidden)
            #expect(try h.error(verified).secondFactor != nil, "the emailed code")
            h.clock.advance(by: 61)
            let reset = try await h.post(
                NativePath.passwordReset, PasswordResetRequest(email: email, code: try await h.requestCode(email), newPassword: "a fresh long passphrase"))
            #expect(reset.status == .forbidden, "a reset")
            let waiting = try #require(try h.error(reset).secondFactor)
            h.clock.advance(by: 61)
            let again = try await h.post(
                NativePath.passwordSignUp, PasswordSignUpRequest(email: email, code: try await h.requestCode(email), password: "yet another passphrase"))
            #expect(again.status == .forbidden, "a sign-up on the address")
            let signUpWaiting = try #require(try h.error(again).secondFactor)
            #expect(try await h.store.sessionCount() <= before, "none of them started a session")
            // Neither changed anything, so both wait; the first completed sets its password, which ends the other.
            #expect(try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: base.code(totp, h))).status == .ok)
            let ended = try await h.post(NativePath.secondStep, SecondStepRequest(token: signUpWaiting.token, code: base.code(totp, h)))
            #expect(ended.status == .unauthorized, "the reset ended the sign-ins waiting beside it")
            #expect(try h.error(ended).code == .secondStepExpired)
            let signedIn = try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: email, password: "a fresh long passphrase"))
            #expect(signedIn.status == .forbidden, "the reset's password passes the first factor")
            #expect(try h.error(signedIn).code == .secondFactorRequired)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aPasswordChangeEndsSignInsWaitingForACode(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await base.signUp(h)
            let (totp, _) = try await base.enrol(h, session)
            let waiting = try await base.firstFactor(h)
            let changed = try await h.post(
                NativePath.passwordChange, PasswordChangeRequest(currentPassword: SecondFactorTests.password, newPassword: "a fresh long passphrase"),
                bearer: session.accessToken)
            #expect(changed.status == .noContent)
            let late = try await h.post(NativePath.secondStep, SecondStepRequest(token: waiting.token, code: base.code(totp, h)))
            #expect(late.status == .unauthorized)
            #expect(try h.error(late).code == .secondStepExpired)
        }
    }

    @Test func addingAnAppTakesARecentSignIn() async throws {
        try await Harness.run { h async throws in
            let session = try await base.signUp(h)
            h.clock.advance(by: StepUp.window)
            let old = try await h.post(NativePath.secondFactorEnrol, json: "", bearer: session.accessToken)
            #expect(old.status == .forbidden)
            #expect(try h.error(old).code == .signInAgain)
            #expect(try await h.store.totp(userID: try #require(UUID(uuidString: session.user.id))) == nil)
            let fresh = try h.decode(
                SessionResponse.self,
                try await h.post(NativePath.passwordSignIn, PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password)))
            #expect(try await h.post(NativePath.secondFactorEnrol, json: "", bearer: fresh.accessToken).status == .ok)
        }
    }

    @Test func turningItOffForgetsRememberedDevicesSoTheNextAppIsAskedFor() async throws {
        try await Harness.run { h async throws in
            let session = try await base.signUp(h)
            let (totp, _) = try await base.enrol(h, session)
            let device = try #require(session.deviceToken)
            let request = PasswordSignInRequest(email: SecondFactorTests.email, password: SecondFactorTests.password, deviceToken: device)
            let waiting = try #require(try h.error(try await h.post(NativePath.passwordSignIn, request)).secondFactor)
            let remembered = try h.decode(
                SessionResponse.self,
                try await h.post(
                    NativePath.secondStep, SecondStepRequest(token: waiting.token, code: base.code(totp, h), deviceToken: device, rememberDevice: true)))
            #expect(try await h.post(NativePath.passwordSignIn, request).status == .ok)
            #expect(
                try await h.post(NativePath.secondFactorDisable, SecondFactorCodeRequest(code: base.code(totp, h)), bearer: remembered.accessToken).status
                    == .noContent)
            let (_, _) = try await base.enrol(h, remembered)
            #expect(try await h.post(NativePath.passwordSignIn, request).status == .forbidden, "the new app is asked for on the old device too")
        }
    }
}

/// An enrolment's first code is a guess like any other: counted on the waiting authenticator, within the limit.
@Suite(.tags(.bothDatabases)) struct EnrolmentGuessTests {
    let base = SecondFactorTests()

    @Test(arguments: StoreBackend.available)
    func fiftyWrongFirstCodesAtOnceEvaluateAtMostTheLimit(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h async throws in
            let session = try await base.signUp(h)
            let enrolment = try h.decode(TOTPEnrolment.self, try await h.post(NativePath.secondFactorEnrol, json: "", bearer: session.accessToken))
            let totp = TOTP(secret: try enrolment.secret.base32decoded())
            let right = totp.code(step: TOTP.step(at: h.clock.now))
            let wrong = right == "000000" ? "000001" : "000000"
            let answers = try await h.parallel(50) { _ in
                try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: wrong), bearer: session.accessToken)
            }
            #expect(answers.count(.unauthorized) <= SecondFactorService.guessesPerWindow)
            #expect(answers.count(.unauthorized) + answers.count(.tooManyRequests) == 50)
            let limited = try await h.post(NativePath.secondFactorConfirm, SecondFactorCodeRequest(code: right), bearer: session.accessToken)
            #expect(limited.status == .tooManyRequests, "the right code waits out the limit too")
            #expect(try await h.store.totp(userID: try #require(UUID(uuidString: session.user.id)))?.confirmedAt == nil)
        }
    }
}
