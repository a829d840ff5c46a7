import ChatterTestSupport
import ChatterWire
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// Sessions bound to a DPoP key (RFC 9449), over HTTP on each database: a bound session's tokens are
/// refused without a fresh proof by its key, on every route that takes a token, and nothing a refused
/// request sends changes anything.
@Suite(.tags(.bothDatabases)) struct BoundSessionTests {
    /// Every operation of the OpenAPI document that takes an access token: the routes a bound token must be refused on.
    static func tokenOperations() throws -> [(method: HTTPRequest.Method, path: String)] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ChatterServer/Resources/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations: [(HTTPRequest.Method, String)] = []
        for (path, entries) in paths.sorted(by: { $0.key < $1.key }) {
            for (method, entry) in entries.sorted(by: { $0.key < $1.key }) {
                let security = ((entry as? [String: Any])?["security"] as? [[String: Any]] ?? []).flatMap(\.keys)
                guard security.contains("bearerAuth"), let verb = HTTPRequest.Method(method.uppercased()) else { continue }
                operations.append((verb, path.replacingOccurrences(of: "{id}", with: UUID().uuidString)))
            }
        }
        return operations
    }

    @Test(arguments: StoreBackend.available)
    func aBoundSessionRefusesItsTokenWithoutItsProofOnEveryRoute(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let key = DPoPTestKey()
            let session = try await h.boundSignIn(key)
            #expect(session.tokenType == "DPoP")
            let operations = try Self.tokenOperations()
            #expect(operations.count >= 20, "the document lists the signed-in routes")
            let before = try await h.counts()
            let thief = DPoPTestKey()
            for (method, path) in operations {
                let token = session.accessToken
                let url = h.client.baseURL + path
                let attempts: [(String, HTTPFields)] = [
                    ("bearer, no proof", [.authorization: "Bearer \(token)"]),
                    ("bearer, with its proof", [.authorization: "Bearer \(token)", .dpop: key.proof(method.rawValue, url, at: h.clock.now)]),
                    ("DPoP, no proof", [.authorization: "DPoP \(token)"]),
                    ("another key's proof", [.authorization: "DPoP \(token)", .dpop: thief.proof(method.rawValue, url, accessToken: token, at: h.clock.now)]),
                    (
                        "proof for another URL",
                        [
                            .authorization: "DPoP \(token)",
                            .dpop: key.proof(method.rawValue, h.client.baseURL + "/v1/me/x", accessToken: token, at: h.clock.now),
                        ]
                    ),
                    ("proof for another method", [.authorization: "DPoP \(token)", .dpop: key.proof("PUT", url, accessToken: token, at: h.clock.now)]),
                    ("proof without ath", [.authorization: "DPoP \(token)", .dpop: key.proof(method.rawValue, url, at: h.clock.now)]),
                    (
                        "an old proof",
                        [.authorization: "DPoP \(token)", .dpop: key.proof(method.rawValue, url, accessToken: token, at: h.clock.now.addingTimeInterval(-600))]
                    ),
                ]
                for (what, headers) in attempts {
                    var headers = headers
                    headers[.contentType] = "application/json"
                    let response = try await h.client.execute(uri: path, method: method, headers: headers, body: ByteBuffer(string: "{}"))
                    #expect(response.status == .unauthorized, "\(method) \(path), \(what)")
                    #expect(try h.error(response).code == .invalidDPoPProof, "\(method) \(path), \(what)")
                    #expect(response.headers[.wwwAuthenticate]?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true, "\(method) \(path), \(what)")
                }
            }
            #expect(try await h.counts() == before, "no refused request changed anything")
            let me = try await h.bound(.get, NativePath.me, session.accessToken, key)
            #expect(me.status == .ok, "the session itself still works: \(String(buffer: me.body))")
        }
    }

    /// Every native way in binds the session it starts to the key its request proved, and a sign-in made
    /// with a proof for another route (a proof lifted from one request to another) is refused before any
    /// credential is spent.
    @Test func everyNativeWayInBindsItsSession() async throws {
        try await Harness.run { h in
            let key = DPoPTestKey()
            func signIn(_ path: String, _ body: some Encodable) async throws -> SessionResponse {
                let response = try await h.post(path, json: try h.json(body), headers: [.dpop: key.proof("POST", h.client.baseURL + path, at: h.clock.now)])
                try #require(response.status == .ok, "\(path): \(String(buffer: response.body))")
                return try h.decode(SessionResponse.self, response)
            }
            var sessions: [(String, SessionResponse)] = []
            sessions.append(("google", try await h.boundSignIn(key)))
            let apple = try AppleTests().appleToken(h, nonce: nil)
            sessions.append(("apple", try await signIn(NativePath.apple, AppleSignInRequest(identityToken: apple, rawNonce: nil))))
            // A proof made for the code request, sent with the verification: refused, and the code still works.
            let code = try await h.requestCode("grace@example.com")
            let lifted = try await h.post(
                NativePath.emailVerify, json: try h.json(EmailVerifyRequest(email: "grace@example.com", code: code)),
                headers: [.dpop: key.proof("POST", h.client.baseURL + NativePath.emailCode, at: h.clock.now)])
            #expect(try lifted.status == .badRequest && h.error(lifted).check == DPoPCheck.url.rawValue)
            sessions.append(("email code", try await signIn(NativePath.emailVerify, EmailVerifyRequest(email: "grace@example.com", code: code))))
            let signUpCode = try await h.requestCode("linus@example.com")
            sessions.append(
                (
                    "password sign-up",
                    try await signIn(
                        NativePath.passwordSignUp, PasswordSignUpRequest(email: "linus@example.com", code: signUpCode, password: "correct horse battery"))
                ))
            sessions.append(
                (
                    "password sign-in",
                    try await signIn(NativePath.passwordSignIn, PasswordSignInRequest(email: "linus@example.com", password: "correct horse battery"))
                ))
            for (way, session) in sessions {
                #expect(session.tokenType == "DPoP", "\(way)")
                #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .unauthorized, "\(way)")
                #expect(try await h.bound(.get, NativePath.me, session.accessToken, key).status == .ok, "\(way)")
            }
            // The course API and the pages never bind: their sessions carry no key.
            #expect(try await h.signIn(subject: "course-1").chatterID.isEmpty == false)
        }
    }

    /// Where no proof can come (the course API's chatterID, the pages' cookie), a bound session's token is
    /// no session at all: a stolen bound access token does not post as its owner nor open their account page.
    @Test(arguments: StoreBackend.available)
    func aBoundTokenIsNeitherAChatterIDNorACookie(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let session = try await h.boundSignIn(DPoPTestKey())
            let before = try await h.counts()
            let post = try await h.post("/postauth", json: try h.json(["chatterID": session.accessToken, "message": "as the owner"]))
            #expect(try post.status == .unauthorized && h.error(post).code == .invalidSession)
            let page = try await h.get("/account", headers: [.cookie: "\(SessionAuthenticator.cookieName)=\(session.accessToken)"])
            #expect(page.status == .seeOther && page.headers[.location]?.hasPrefix("/auth") == true, "\(page.status)")
            let api = try await h.get(NativePath.me, headers: [.cookie: "\(SessionAuthenticator.cookieName)=\(session.accessToken)"])
            #expect(try api.status == .unauthorized && h.error(api).code == .invalidDPoPProof)
            #expect(try await h.counts() == before)
            // An unbound native token still works as a chatterID, as before.
            let bearer = try await h.nativeSignIn(subject: "2000002")
            #expect(try await h.post("/postauth", json: try h.json(["chatterID": bearer.accessToken, "message": "hi"])).status == .ok)
        }
    }

    /// Only the native API reads proofs: on the course API and the pages a `DPoP` header, good or not, is
    /// ignored (it binds nothing there, and costs no check or row).
    @Test func proofsOutsideTheNativeAPIAreIgnored() async throws {
        try await Harness.run { h in
            for path in ["/getchatts", "/auth", "/health"] {
                let response = try await h.get(path, headers: [.dpop: "not.a.proof"])
                #expect(response.status == .ok, "\(path)")
            }
            let refused = try await h.get(NativePath.chatts, headers: [.dpop: "not.a.proof"])
            #expect(try refused.status == .badRequest && h.error(refused).code == .invalidDPoPProof)
        }
    }

    /// A proof is good for one request, on any instance: the same proof sent twenty times at once is taken once.
    @Test(arguments: StoreBackend.available)
    func aProofSentManyTimesAtOnceIsTakenOnce(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let key = DPoPTestKey()
            let session = try await h.boundSignIn(key)
            let proof = key.proof("GET", h.client.baseURL + NativePath.me, accessToken: session.accessToken, at: h.clock.now)
            let answers = try await h.parallel(20) { _ in
                try await h.client.execute(uri: NativePath.me, method: .get, headers: [.authorization: "DPoP \(session.accessToken)", .dpop: proof])
            }
            #expect(answers.count(.ok) == 1 && answers.count(.unauthorized) == 19)
            #expect(try answers.filter { $0.status == .unauthorized }.allSatisfy { try h.error($0).check == DPoPCheck.replayed.rawValue })
        }
    }

    /// A refresh token copied off the device is useless without the key: refused, and the session (not
    /// taken for reuse) goes on for its owner, whose refresh keeps it bound.
    @Test(arguments: StoreBackend.available)
    func aStolenRefreshTokenIsUselessWithoutTheKey(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let key = DPoPTestKey()
            let session = try await h.boundSignIn(key)
            let url = h.client.baseURL + NativePath.refresh
            let body = RefreshRequest(refreshToken: session.refreshToken)
            for headers: HTTPFields in [[:], [.dpop: DPoPTestKey().proof("POST", url, at: h.clock.now)]] {
                let stolen = try await h.post(NativePath.refresh, json: try h.json(body), headers: headers)
                #expect(try stolen.status == .badRequest && h.error(stolen).code == .invalidDPoPProof, "\(String(buffer: stolen.body))")
            }
            let refreshed = try await h.post(NativePath.refresh, json: try h.json(body), headers: [.dpop: key.proof("POST", url, at: h.clock.now)])
            #expect(refreshed.status == .ok, "\(String(buffer: refreshed.body))")
            let next = try h.decode(SessionResponse.self, refreshed)
            #expect(next.tokenType == "DPoP")
            #expect(try await h.bound(.get, NativePath.me, next.accessToken, key).status == .ok)
            #expect(try await h.get(NativePath.me, bearer: next.accessToken).status == .unauthorized, "the new token is bound too")
            // The retired token again, by a thief with another key: refused, and the session goes on.
            let replayed = try await h.post(NativePath.refresh, json: try h.json(body), headers: [.dpop: DPoPTestKey().proof("POST", url, at: h.clock.now)])
            #expect(try h.error(replayed).code == .invalidDPoPProof)
            #expect(try await h.bound(.get, NativePath.me, next.accessToken, key).status == .ok)
        }
    }

    /// A session from before the client had a key is bound by its first refresh with a proof; bearer
    /// sessions go on working where proofs are not required.
    @Test(arguments: StoreBackend.available)
    func anUnboundSessionIsBoundByItsFirstProof(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend) { h in
            let session = try await h.nativeSignIn()
            #expect(session.tokenType == "Bearer")
            #expect(try await h.get(NativePath.me, bearer: session.accessToken).status == .ok)
            let key = DPoPTestKey()
            let refreshed = try await h.post(
                NativePath.refresh, json: try h.json(RefreshRequest(refreshToken: session.refreshToken)),
                headers: [.dpop: key.proof("POST", h.client.baseURL + NativePath.refresh, at: h.clock.now)])
            let bound = try h.decode(SessionResponse.self, refreshed)
            #expect(bound.tokenType == "DPoP")
            #expect(try await h.get(NativePath.me, bearer: bound.accessToken).status == .unauthorized)
            #expect(try await h.bound(.get, NativePath.me, bound.accessToken, key).status == .ok)
        }
    }

    /// `--require-dpop`: sign-ins, refreshes and bearer tokens without a proof are refused on the native API,
    /// before a code is spent; the course API is unchanged.
    @Test(arguments: StoreBackend.available)
    func anOperatorCanRequireProofs(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend, configure: { $0.requireDPoP = true }) { h in
            let token = try h.issuer.sign(TestIssuer.claims(subject: "1000001", name: "Ada", now: h.clock.now))
            let google = try h.json(GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID))
            let refused = try await h.post(NativePath.google, json: google)
            #expect(try refused.status == .badRequest && h.error(refused).code == .invalidDPoPProof && h.error(refused).check == "required")
            #expect(try await h.counts() == [0, 0, 0], "nothing was created")
            // A cookie header does not let a sign-in past: the session itself is refused.
            let withCookie = try await h.post(NativePath.google, json: google, headers: [.cookie: "\(SessionAuthenticator.cookieName)=x"])
            #expect(try withCookie.status == .badRequest && h.error(withCookie).code == .invalidDPoPProof)
            #expect(try await h.store.sessionCount() == 0)
            let key = DPoPTestKey()
            let session = try await h.boundSignIn(key)
            #expect(session.tokenType == "DPoP")
            let refresh = try await h.post(NativePath.refresh, json: try h.json(RefreshRequest(refreshToken: session.refreshToken)))
            #expect(try refresh.status == .badRequest && h.error(refresh).code == .invalidDPoPProof)
            // The course API takes no proofs and needs none.
            #expect(try await h.signIn().chatterID.isEmpty == false)
        }
    }

    /// `--require-dpop` turned on with a bearer session live (an app from before): its bearer token is
    /// refused, naming the requirement, until a refresh with a proof binds the session, which then goes on.
    @Test(arguments: StoreBackend.available)
    func aBearerSessionFromBeforeTheRequirementIsBoundByItsNextRefresh(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend, configure: { $0.requireDPoP = true }) { h in
            let user = try await h.store.signIn(IdentityKey(issuer: TestIssuer.googleIssuer, subject: "older-app"), "Ada")
            let id = UUID()
            let key = h.store.tokenKey
            let access = SessionToken.generate(naming: id, as: .access, signedWith: key)
            let refresh = SessionToken.generate(naming: id, as: .refresh, signedWith: key)
            try await h.store.createSession(
                NewSession(
                    id: id, userID: user.id, method: "google", accessHash: access.hash, accessExpiresAt: h.clock.now.addingTimeInterval(900),
                    refreshHash: refresh.hash, createdAt: h.clock.now, absoluteExpiresAt: h.clock.now.addingTimeInterval(86_400),
                    client: ClientInfo(), accessTokenNamed: true))
            let bearer = try await h.get(NativePath.me, bearer: access.secret)
            #expect(try bearer.status == .unauthorized && h.error(bearer).check == "required")
            let device = DPoPTestKey()
            let refreshed = try await h.post(
                NativePath.refresh, json: try h.json(RefreshRequest(refreshToken: refresh.secret)),
                headers: [.dpop: device.proof("POST", h.client.baseURL + NativePath.refresh, at: h.clock.now)])
            let bound = try h.decode(SessionResponse.self, refreshed)
            #expect(bound.tokenType == "DPoP")
            #expect(try await h.bound(.get, NativePath.me, bound.accessToken, device).status == .ok)
        }
    }

    /// RFC 9449 §8: with nonces on, a proof without the server's nonce is answered `use_dpop_nonce` with one,
    /// and the retry with it goes through.
    @Test(arguments: StoreBackend.available)
    func aServerNonceIsAskedForAndGiven(backend: StoreBackend) async throws {
        try await Harness.run(backend: backend, configure: { $0.dpopNonces = true }) { h in
            let key = DPoPTestKey()
            let token = try h.issuer.sign(TestIssuer.claims(subject: "1000001", name: "Ada", now: h.clock.now))
            let body = try h.json(GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID))
            let url = h.client.baseURL + NativePath.google
            let first = try await h.post(NativePath.google, json: body, headers: [.dpop: key.proof("POST", url, at: h.clock.now)])
            #expect(try first.status == .badRequest && h.error(first).code == .useDPoPNonce)
            let nonce = try #require(first.headers[.dpopNonce])
            let second = try await h.post(NativePath.google, json: body, headers: [.dpop: key.proof("POST", url, nonce: nonce, at: h.clock.now)])
            #expect(second.status == .ok, "\(String(buffer: second.body))")
            #expect(second.headers[.dpopNonce] == nonce)
            let session = try h.decode(SessionResponse.self, second)
            let me = try await h.client.execute(
                uri: NativePath.me, method: .get,
                headers: [
                    .authorization: "DPoP \(session.accessToken)",
                    .dpop: key.proof("GET", h.client.baseURL + NativePath.me, accessToken: session.accessToken, at: h.clock.now),
                ])
            #expect(try me.status == .unauthorized && h.error(me).code == .useDPoPNonce)
            #expect(me.headers[.wwwAuthenticate]?.hasPrefix("DPoP error=\"use_dpop_nonce\"") == true)
        }
    }
}

extension Harness {
    /// Signs in with Google, proving `key`: the session is bound to it.
    func boundSignIn(_ key: DPoPTestKey, subject: String = "1000001") async throws -> SessionResponse {
        let token = try issuer.sign(TestIssuer.claims(subject: subject, name: "Ada Lovelace", now: clock.now))
        let response = try await post(
            NativePath.google, json: try json(GoogleSignInRequest(idToken: token, clientID: TestIssuer.clientID)),
            headers: [.dpop: key.proof("POST", client.baseURL + NativePath.google, at: clock.now)])
        try #require(response.status == .ok, "bound sign-in failed: \(String(buffer: response.body))")
        return try decode(SessionResponse.self, response)
    }

    /// A request with a bound session's token and a fresh proof by `key`.
    func bound(_ method: HTTPRequest.Method, _ path: String, _ token: String, _ key: DPoPTestKey) async throws -> LiveResponse {
        try await client.execute(
            uri: path, method: method,
            headers: [.authorization: "DPoP \(token)", .dpop: key.proof(method.rawValue, client.baseURL + path, accessToken: token, at: clock.now)])
    }

    func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
