import ChatterServer
import ChatterWire
import Crypto
import Foundation
import Hummingbird
import Synchronization

/// The native API (/v1) exactly as NativeAPI.swift fixes it, for the parts chatterd on `main` does not
/// serve yet: in-memory accounts, rotating refresh tokens with reuse detection, emailed codes (kept in an
/// outbox the test reads), passwords. It is mounted beside the real course routes in one live server,
/// and counts refresh calls so tests can prove de-duplication from the server's side too.
final class NativeStandIn: Sendable {
    struct Account {
        var profile: UserProfile
        var password: String?
        var appleSubject: String?
    }

    struct Session {
        var id: String
        var userID: String
        var access: String
        var accessExpiresAt: Date
        var refresh: String
        var retired: Set<String> = []
        var endsAt: Date
        var userAgent: String?
        var createdAt: Date
        var revoked = false
    }

    struct State {
        var accounts: [String: Account] = [:]
        var sessions: [String: Session] = [:]
        var codes: [String: String] = [:]
        var outbox: [(email: String, code: String)] = []
        var refreshCalls = 0
        var appleRegistrations = 0
        var failAppleOnce = false
        var chatts: [ChattItem] = []
    }

    let state = Mutex(State())
    /// chatterd's own store: the native timeline shows the course API's chatts too, as on the real server.
    let store: any ChatterStore
    let now: @Sendable () -> Date
    let accessLifetime: Int
    let refreshLifetime: Int
    let policy = PasswordPolicy(minimumLength: 8, maximumLength: 64, maximumBytes: 72, blocksCommonPasswords: true)
    static let commonPasswords: Set<String> = ["password", "12345678", "password1", "qwertyuiop"]

    init(store: any ChatterStore, now: @escaping @Sendable () -> Date, accessLifetime: Int = 300, refreshLifetime: Int = 30 * 86400) {
        self.store = store
        self.now = now
        self.accessLifetime = accessLifetime
        self.refreshLifetime = refreshLifetime
    }

    var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    var appleRegistrations: Int { state.withLock { $0.appleRegistrations } }
    func failNextAppleSignIn() { state.withLock { $0.failAppleOnce = true } }
    func lastCode(for email: String) -> String? { state.withLock { s in s.outbox.last { $0.email == email }?.code } }
    func account(email: String) -> UserProfile? { state.withLock { s in s.accounts.values.first { $0.profile.email == email }?.profile } }
    func accountCount() -> Int { state.withLock { $0.accounts.count } }
    func liveSessions() -> Int { state.withLock { s in s.sessions.values.filter { !$0.revoked }.count } }

    // MARK: routes

    func register(on router: Router<ChatterRequestContext>) {
        router.get("v1/auth/password-policy") { _, _ in self.json(self.policy) }
        router.post("v1/auth/email/code") { request, _ in
            let body = try await self.decode(EmailCodeRequest.self, request)
            let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
            self.state.withLock {
                $0.codes[body.email.lowercased()] = code
                $0.outbox.append((body.email.lowercased(), code))
            }
            return self.json(EmailCodeResponse(resendAfter: 30, expiresIn: 600))
        }
        router.post("v1/auth/email/verify") { request, _ in
            let body = try await self.decode(EmailVerifyRequest.self, request)
            try self.consumeCode(email: body.email, code: body.code)
            return self.issue(for: self.findOrCreate(email: body.email, method: "email"), request)
        }
        router.post("v1/auth/password/signup") { request, _ in
            let body = try await self.decode(PasswordSignUpRequest.self, request)
            guard body.password.count >= self.policy.minimumLength, !Self.commonPasswords.contains(body.password.lowercased()) else {
                throw APIError(.badRequest, "weak_password", "Choose a longer, less common password.")
            }
            try self.consumeCode(email: body.email, code: body.code)
            let id = self.findOrCreate(email: body.email, method: "password", displayName: body.displayName)
            self.state.withLock { $0.accounts[id]?.password = body.password }
            return self.issue(for: id, request)
        }
        router.post("v1/auth/password/signin") { request, _ in
            let body = try await self.decode(PasswordSignInRequest.self, request)
            let id = self.state.withLock { s in
                s.accounts.first { $0.value.profile.email == body.email.lowercased() && $0.value.password == body.password }?.key
            }
            guard let id else { throw APIError(.unauthorized, "invalid_credentials", "The email or password is wrong.") }
            return self.issue(for: id, request)
        }
        router.post("v1/auth/apple") { request, _ in try await self.apple(request) }
        router.post("v1/auth/refresh") { request, _ in try await self.refresh(request) }
        router.post("v1/auth/signout") { request, _ in
            let session = try self.authenticate(request)
            let body = try await self.decode(SignOutRequest.self, request)
            self.state.withLock { s in
                for (id, other) in s.sessions where id == session.id || (body.all && other.userID == session.userID) {
                    s.sessions[id]?.revoked = true
                }
            }
            return self.json(EmptyResponse())
        }
        router.get("v1/me") { request, _ in
            let session = try self.authenticate(request)
            return self.json(self.state.withLock { $0.accounts[session.userID]!.profile })
        }
        router.get("v1/sessions") { request, _ in
            let session = try self.authenticate(request)
            let list = self.state.withLock { s in
                s.sessions.values.filter { $0.userID == session.userID && !$0.revoked }.sorted { $0.createdAt < $1.createdAt }.map {
                    SessionInfo(
                        id: $0.id, userAgent: $0.userAgent, createdAt: $0.createdAt.timeIntervalSince1970,
                        lastUsedAt: $0.createdAt.timeIntervalSince1970, current: $0.id == session.id)
                }
            }
            return self.json(list)
        }
        router.delete("v1/sessions/:id") { request, context in
            let session = try self.authenticate(request)
            let target = context.parameters.get("id") ?? ""
            let found = self.state.withLock { s -> Bool in
                guard s.sessions[target]?.userID == session.userID else { return false }
                s.sessions[target]?.revoked = true
                return true
            }
            guard found else { throw APIError(.notFound, "not_found", "No such session.") }
            return self.json(EmptyResponse())
        }
        router.get("v1/chatts") { _, _ in
            let course = try await self.store.allChatts().map {
                ChattItem(id: $0.id.uuidString, userID: $0.userID?.uuidString, name: $0.name, message: $0.message, time: $0.time.timeIntervalSince1970)
            }
            let all = (course + self.state.withLock { $0.chatts }).sorted { $0.time > $1.time }
            return self.json(ChattPage(chatts: all, next: nil))
        }
        router.post("v1/chatts") { request, _ in
            let session = try self.authenticate(request)
            let body = try await self.decode(NewChattRequest.self, request)
            let item = self.state.withLock { s -> ChattItem in
                let item = ChattItem(
                    id: UUID().uuidString, userID: session.userID, name: s.accounts[session.userID]!.profile.displayName,
                    message: body.message, time: self.now().timeIntervalSince1970)
                s.chatts.append(item)
                return item
            }
            return self.json(item, status: .created)
        }
    }

    // MARK: behaviour

    func apple(_ request: Request) async throws -> Response {
        let body = try await decode(AppleSignInRequest.self, request)
        if state.withLock({ s in defer { s.failAppleOnce = false }; return s.failAppleOnce }) {
            throw APIError(.serviceUnavailable, "keys_unavailable", "Apple's keys could not be fetched; try again shortly.")
        }
        // A stand-in for Apple's signed token: "apple.<subject>.<hex sha256 of the raw nonce>".
        let parts = body.identityToken.split(separator: ".").map(String.init)
        guard parts.count == 3, parts[0] == "apple", let rawNonce = body.rawNonce,
            parts[2] == SHA256.hash(data: Data(rawNonce.utf8)).map({ String(format: "%02x", $0) }).joined()
        else { throw APIError(.unauthorized, "invalid_token", "The identity token or nonce is wrong.") }
        let id = state.withLock { s -> String in
            if let existing = s.accounts.first(where: { $0.value.appleSubject == parts[1] })?.key { return existing }
            s.appleRegistrations += 1
            let name = body.name.map { [$0.givenName, $0.familyName].compactMap { $0 }.joined(separator: " ") } ?? ""
            let profile = UserProfile(
                id: UUID().uuidString, displayName: name.isEmpty ? "Profile NA" : name, email: body.email, emailVerified: body.email != nil,
                name: body.name, methods: ["apple"])
            s.accounts[profile.id] = Account(profile: profile, appleSubject: parts[1])
            return profile.id
        }
        return issue(for: id, request)
    }

    func refresh(_ request: Request) async throws -> Response {
        let body = try await decode(RefreshRequest.self, request)
        return try state.withLock { s in
            s.refreshCalls += 1
            if let (id, session) = s.sessions.first(where: { $0.value.retired.contains(body.refreshToken) }) {
                _ = session
                s.sessions[id]?.revoked = true
                throw APIError(.unauthorized, AuthErrorCode.refreshTokenReused, "This refresh token was already used; the session is revoked.")
            }
            guard let (id, session) = s.sessions.first(where: { $0.value.refresh == body.refreshToken }), !session.revoked,
                session.endsAt > now()
            else { throw APIError(.unauthorized, AuthErrorCode.invalidRefreshToken, "Sign in again.") }
            var rotated = session
            rotated.retired.insert(session.refresh)
            rotated.refresh = Self.token()
            rotated.access = Self.token()
            rotated.accessExpiresAt = now().addingTimeInterval(Double(accessLifetime))
            s.sessions[id] = rotated
            return json(response(rotated, s.accounts[rotated.userID]!.profile))
        }
    }

    func authenticate(_ request: Request) throws -> Session {
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer ") else { throw APIError(.unauthorized, AuthErrorCode.invalidAccessToken, "Sign in first.") }
        let token = String(header.dropFirst(7))
        let session = state.withLock { s in s.sessions.values.first { $0.access == token } }
        guard let session, !session.revoked else { throw APIError(.unauthorized, AuthErrorCode.invalidAccessToken, "Unknown token.") }
        guard session.accessExpiresAt > now() else { throw APIError(.unauthorized, AuthErrorCode.accessTokenExpired, "Refresh it.") }
        return session
    }

    func consumeCode(email: String, code: String) throws {
        let ok = state.withLock { s -> Bool in
            guard s.codes[email.lowercased()] == code else { return false }
            s.codes[email.lowercased()] = nil
            return true
        }
        guard ok else { throw APIError(.unauthorized, "invalid_code", "That code is wrong or has expired.") }
    }

    func findOrCreate(email: String, method: String, displayName: String? = nil) -> String {
        state.withLock { s in
            let email = email.lowercased()
            if let existing = s.accounts.first(where: { $0.value.profile.email == email })?.key {
                if !s.accounts[existing]!.profile.methods.contains(method) { s.accounts[existing]!.profile.methods.append(method) }
                return existing
            }
            let profile = UserProfile(
                id: UUID().uuidString, displayName: displayName ?? String(email.prefix { $0 != "@" }), email: email, emailVerified: true,
                name: nil, methods: [method])
            s.accounts[profile.id] = Account(profile: profile)
            return profile.id
        }
    }

    func issue(for userID: String, _ request: Request) -> Response {
        let at = now()
        let session = Session(
            id: UUID().uuidString, userID: userID, access: Self.token(), accessExpiresAt: at.addingTimeInterval(Double(accessLifetime)),
            refresh: Self.token(), endsAt: at.addingTimeInterval(Double(refreshLifetime)), userAgent: request.headers[.userAgent], createdAt: at)
        let profile = state.withLock { s in
            s.sessions[session.id] = session
            return s.accounts[userID]!.profile
        }
        return json(response(session, profile))
    }

    func response(_ session: Session, _ profile: UserProfile) -> SessionResponse {
        SessionResponse(
            accessToken: session.access, refreshToken: session.refresh, expiresIn: accessLifetime,
            refreshExpiresIn: Int(session.endsAt.timeIntervalSince(now())), sessionID: session.id, user: profile)
    }

    static func token() -> String { (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }

    func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: Limits.bodyBytes)
        do { return try JSONDecoder().decode(T.self, from: buffer) } catch {
            throw APIError(.unprocessableContent, "invalid_body", "The body is not what \(T.self) needs.")
        }
    }

    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try! JSONEncoder().encode(value))))
    }
}
