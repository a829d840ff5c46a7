import ChatterTestSupport
import ChatterWire
import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// An attested install vouches for a sign-in: an `App-Attest-Assertion` over a fresh challenge and the request's
/// DPoP key. The session records the app, each assertion's counter is used once, and an operator can create
/// accounts only for such sign-ins, on every surface.
@Suite(.tags(.bothDatabases)) struct AppAttestVouchingTests {
    static let header = HTTPField.Name(AppAttestAssertion.header)!

    /// An install: its attested key and the DPoP key it proves.
    struct Install {
        let device: SimulatedAppAttest
        let key = SimulatedAppAttest.Key()
        let dpop = DPoPTestKey()
    }

    static func run(backend: StoreBackend, device: SimulatedAppAttest, signUps: [String] = [], _ body: @Sendable (Harness) async throws -> Void)
        async throws
    {
        try await Harness.run(
            backend: backend, appAttestRoot: device.root,
            configure: {
                $0.appAttestAppIDs = [device.appID]
                $0.appAttestSignUpAppIDs = signUps
            }, body)
    }

    func attested(_ h: Harness, _ device: SimulatedAppAttest) async throws -> Install {
        let install = Install(device: device)
        let challenge = try await challenge(h)
        let object = try device.attestation(of: install.key, clientDataHash: AppAttestVerifier.clientDataHash(Array(challenge.utf8)), now: h.clock.now)
        let response = try await h.post(
            NativePath.appAttestKeys,
            AppAttestKeyRequest(keyId: Base64URL.encode(install.key.keyID), attestation: Base64URL.encode(object), challenge: challenge))
        try #require(response.status == .created)
        return install
    }

    func challenge(_ h: Harness) async throws -> String {
        try h.decode(AppAttestChallengeResponse.self, try await h.post(NativePath.appAttestChallenge, json: "")).challenge
    }

    /// The header over `challenge` and `thumbprint` (the install's DPoP key's unless given), with `counter`.
    func assertion(_ install: Install, challenge: String, counter: UInt32, thumbprint: String?? = nil, keyID: [UInt8]? = nil) throws -> String {
        let covered = AppAttestAssertion.clientData(challenge: challenge, thumbprint: thumbprint ?? install.dpop.thumbprint)
        let object = try install.device.assertion(by: install.key, clientDataHash: AppAttestVerifier.clientDataHash(Array(covered.utf8)), counter: counter)
        return "\(Base64URL.encode(keyID ?? install.key.keyID)).\(challenge).\(Base64URL.encode(object))"
    }

    /// A native Google sign-in of `subject` with a proof by the install's DPoP key and, when given, an assertion.
    func signIn(_ h: Harness, _ install: Install, subject: String = "1000001", assertion: String?, proof: Bool = true) async throws -> LiveResponse {
        let token = try h.issuer.sign(TestIssuer.claims(subject: subject, name: "Ada Lovelace", now: h.clock.now))
        var headers: HTTPFields = [:]
        if proof { headers[.dpop] = install.dpop.proof("POST", h.client.baseURL + NativePath.google, at: h.clock.now) }
        if let assertion { headers[Self.header] = assertion }
        return try await h.post(NativePath.google, json: try h.json(GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID)), headers: headers)
    }

    func listed(_ h: Harness, _ response: LiveResponse, _ install: Install) async throws -> [SessionInfo] {
        let session = try h.decode(SessionResponse.self, response)
        let list = try await h.bound(.get, NativePath.sessions, session.accessToken, install.dpop)
        try #require(list.status == .ok)
        return try h.decode([SessionInfo].self, list)
    }

    /// A server that names no apps (or stopped naming them) reads no assertion: an app still sending one, even one
    /// that would fail every check, signs in as before, recorded without an app.
    @Test func aServerNamingNoAppsIgnoresTheHeader() async throws {
        let install = Install(device: try SimulatedAppAttest(now: TestClock().now))
        try await Harness.run { h in
            let response = try await signIn(h, install, assertion: "not.an.assertion")
            try #require(response.status == .ok, "\(String(buffer: response.body))")
            #expect(try await listed(h, response, install).map(\.attestedApp) == [nil])
        }
    }

    @Test(arguments: StoreBackend.available)
    func aSignInVouchedForRecordsItsAppAndEachAssertionWorksOnce(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device) { h in
            let install = try await attested(h, device)
            let header = try assertion(install, challenge: try await challenge(h), counter: 1)
            // A route that starts no session ignores the header: it spends neither challenge nor counter.
            let ignored = try await h.post(NativePath.emailCode, json: try h.json(EmailCodeRequest(email: "ada@example.com")), headers: [Self.header: header])
            #expect(ignored.status == .accepted)
            let vouched = try await signIn(h, install, assertion: header)
            try #require(vouched.status == .ok, "\(String(buffer: vouched.body))")
            #expect(try await listed(h, vouched, install).map(\.attestedApp) == [device.appID])
            #expect(try await h.store.appAttestKey(id: install.key.keyID)?.counter == 1)

            // Without an assertion: a session, recorded without an app.
            let plain = try await signIn(h, install, assertion: nil)
            #expect(Set(try await listed(h, plain, install).map(\.attestedApp)) == [device.appID, nil])

            var refusals: [(String, LiveResponse)] = []
            refusals.append(("the same header again", try await signIn(h, install, assertion: header)))
            refusals.append(
                (
                    "a new challenge, the counter used",
                    try await signIn(h, install, assertion: try assertion(install, challenge: try await challenge(h), counter: 1))
                ))
            refusals.append(
                (
                    "over another DPoP key",
                    try await signIn(
                        h, install, assertion: try assertion(install, challenge: try await challenge(h), counter: 2, thumbprint: DPoPTestKey().thumbprint))
                ))
            refusals.append(
                (
                    "over no DPoP key, sent with a proof",
                    try await signIn(h, install, assertion: try assertion(install, challenge: try await challenge(h), counter: 3, thumbprint: .some(nil)))
                ))
            refusals.append(
                (
                    "an unknown key ID",
                    try await signIn(
                        h, install, assertion: try assertion(install, challenge: try await challenge(h), counter: 4, keyID: SimulatedAppAttest.Key().keyID))
                ))
            refusals.append(
                (
                    "an unknown challenge",
                    try await signIn(h, install, assertion: try assertion(install, challenge: Base64URL.encode(SecureRandom.bytes(32)), counter: 5))
                ))
            refusals.append(("not three parts", try await signIn(h, install, assertion: "abc")))
            refusals.append(("not base64", try await signIn(h, install, assertion: "!.\(try await challenge(h)).!")))
            refusals.append(("over 1 KB", try await signIn(h, install, assertion: String(repeating: "A", count: 2000))))
            let checks = try refusals.map { what, response in
                #expect(response.status == .badRequest, "\(what)")
                #expect(try h.error(response).error == ErrorCode.invalidAppAttest.rawValue, "\(what)")
                return try h.error(response).check ?? ""
            }
            #expect(checks == ["challenge", "counter", "signature", "signature", "key_id", "challenge", "format", "format", "format"])
            #expect(try await h.store.appAttestKey(id: install.key.keyID)?.counter == 1, "no refused assertion moved the counter")
            #expect(try await listed(h, plain, install).count == 2, "no refused request started a session")

            // Without a DPoP proof, the assertion covers the challenge and an empty thumbprint: recorded, unbound.
            let unbound = try await signIn(
                h, install, assertion: try assertion(install, challenge: try await challenge(h), counter: 9, thumbprint: .some(nil)), proof: false)
            try #require(unbound.status == .ok, "\(String(buffer: unbound.body))")
            #expect(try h.decode(SessionResponse.self, unbound).tokenType == "Bearer")
            let sessions = try await h.store.sessions(
                of: try #require(try await h.store.user(for: IdentityKey(issuer: TestIssuer.googleIssuer, subject: "1000001"))).id)
            #expect(sessions.filter { $0.attestedApp == device.appID }.count == 2)
        }
    }

    /// Assertions showing one counter, each over a challenge of its own, sent at once: one vouches, the rest are
    /// refused as replays, and only one session starts.
    @Test(arguments: StoreBackend.available)
    func ofManyAssertionsWithOneCounterAtOnceOneVouches(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device) { h in
            let install = try await attested(h, device)
            var headers: [String] = []
            for _ in 0..<12 { headers.append(try assertion(install, challenge: try await challenge(h), counter: 7)) }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for header in headers { group.addTask { try await signIn(h, install, assertion: header).status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .badRequest }.count == 11)
            let user = try #require(try await h.store.user(for: IdentityKey(issuer: TestIssuer.googleIssuer, subject: "1000001")))
            #expect(try await h.store.sessions(of: user.id).count == 1)
        }
    }

    /// `--app-attest-sign-up`: accounts are created only for vouched sign-ins, whichever surface is asked (the native
    /// API, the course API, the pages); an account that exists signs in everywhere as before.
    @Test(arguments: StoreBackend.available)
    func anOperatorCanCreateAccountsOnlyForAttestedInstalls(backend: StoreBackend) async throws {
        let device = try SimulatedAppAttest(now: TestClock().now)
        try await Self.run(backend: backend, device: device, signUps: [device.appID]) { h in
            let install = try await attested(h, device)
            let native = try await signIn(h, install, assertion: nil)
            #expect(native.status == .forbidden)
            #expect(try h.error(native).error == ErrorCode.appAttestRequired.rawValue)
            let course = try await h.post(
                "/adduser", AddUserRequest(clientID: TestIssuer.clientID, idToken: try h.issuer.sign(TestIssuer.claims(subject: "1000001", now: h.clock.now))))
            #expect(course.status == .forbidden)
            let code = try await h.requestCode("grace@example.com")
            let byCode = try await h.post(NativePath.emailVerify, EmailVerifyRequest(email: "grace@example.com", code: code))
            #expect(byCode.status == .forbidden)
            var browser = WebBrowser(h)
            let page = try await browser.signInWithCode("linus@example.com")
            #expect(page.status == .seeOther)
            let shown = WebBrowser.text(try await browser.get(try #require(page.headers[.location])))
            #expect(shown.contains("New accounts are created in the app"), "the page says why, and where to go")
            #expect(try await h.store.userCount() == 0)

            let vouched = try await signIn(h, install, assertion: try assertion(install, challenge: try await challenge(h), counter: 1))
            #expect(vouched.status == .ok)
            #expect(try await h.store.userCount() == 1)
            // The account exists: it signs in without an assertion, natively and on the course API.
            #expect(try await signIn(h, install, assertion: nil).status == .ok)
            #expect(try await h.signIn(subject: "1000001").chatterID.isEmpty == false)

            // A password sign-up and a passkey sign-up (whose options create the account) without, then with, an assertion.
            func signUp(_ path: String, _ body: (String) -> some Encodable, email: String, counter: UInt32?) async throws -> LiveResponse {
                let code = try await h.requestCode(email)
                var headers: HTTPFields = [:]
                if let counter { headers[Self.header] = try assertion(install, challenge: try await challenge(h), counter: counter, thumbprint: .some(nil)) }
                return try await h.post(path, json: try h.json(body(code)), headers: headers)
            }
            let password = { (code: String) in PasswordSignUpRequest(email: "pat@example.com", code: code, password: "correct horse battery") }
            let passkey = { (code: String) in PasskeySignUpOptionsRequest(email: "quinn@example.com", code: code) }
            #expect(try await signUp(NativePath.passwordSignUp, password, email: "pat@example.com", counter: nil).status == .forbidden)
            #expect(try await signUp(NativePath.passkeySignUpOptions, passkey, email: "quinn@example.com", counter: nil).status == .forbidden)
            #expect(try await h.store.userCount() == 1)
            #expect(try await signUp(NativePath.passwordSignUp, password, email: "pat@example.com", counter: 2).status == .ok)
            #expect(try await signUp(NativePath.passkeySignUpOptions, passkey, email: "quinn@example.com", counter: 3).status == .ok)
            #expect(try await h.store.userCount() == 3)
        }
    }

    /// Per app ID: an install of an app whose keys are accepted, but which the operator did not name for sign-up, may
    /// not create an account; with no app named, anyone may.
    @Test func onlyInstallsOfTheNamedAppsMaySignUp() {
        let gate = SignUpGate(attestedApps: ["ABCDE12345.com.example.chatter"])
        let named = ClientInfo(attested: AttestedInstall(keyID: [1], appID: "ABCDE12345.com.example.chatter"))
        let other = ClientInfo(attested: AttestedInstall(keyID: [2], appID: "ABCDE12345.com.example.other"))
        #expect(gate.admits(named))
        #expect(!gate.admits(other))
        #expect(!gate.admits(ClientInfo()))
        #expect(SignUpGate().admits(ClientInfo()))
    }

    @Test func signUpAppsMustBeAppsWhoseKeysAreAccepted() throws {
        var configuration = ServerConfiguration()
        configuration.appAttestAppIDs = ["ABCDE12345.com.example.chatter"]
        configuration.appAttestSignUpAppIDs = ["ABCDE12345.com.example.other"]
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.appAttestSignUpAppIDs = ["ABCDE12345.com.example.chatter"]
        try configuration.validate()
    }
}
