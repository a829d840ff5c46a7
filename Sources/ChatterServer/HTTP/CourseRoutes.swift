import ChatterWire
import Foundation
import Hummingbird
import Logging

/// The course-compatible API. Shapes and status codes here must not change.
struct CourseRoutes {
    let services: ChatterServices
    let timeline: Timeline
    let allowAnonymousPosting: Bool

    var now: @Sendable () -> Date { services.now }

    static let missingName = "Profile NA"

    func register(on router: Router<ChatterRequestContext>) {
        // Course clients call these with and without a trailing slash; the router matches both.
        router.get("getchatts") { _, _ in try await getChatts() }
        router.post("postchatt") { request, context in try await postChatt(request, context) }
        router.post("adduser") { request, context in try await addUser(request, context) }
        router.post("postauth") { request, context in try await postAuth(request, context) }
    }

    func getChatts() async throws -> Response {
        JSONResponse.make(bytes: try await timeline.courseJSON())
    }

    func postChatt(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        guard allowAnonymousPosting else {
            throw APIError(
                .forbidden, "anonymous_posting_disabled",
                "Anonymous posting is off because it lets anyone post under any name. Sign in and use /postauth, or start chatterd with --allow-anonymous-posting (CHATTERD_ALLOW_ANONYMOUS_POSTING=1) to enable it.")
        }
        let body = try await request.decodeJSON(PostChattRequest.self, context: context)
        try Self.checkLimits(name: body.name, message: body.message)
        try await timeline.add(Chatt(name: body.name, message: body.message, time: now(), userID: nil))
        return JSONResponse.make(EmptyResponse())
    }

    func addUser(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(AddUserRequest.self, context: context)
        let identity: VerifiedIdentity
        let client = context.client(request)
        do {
            identity = try await services.google.verify(body.idToken, clientID: body.clientID)
        } catch {
            await services.audit.record(.signInFailed, method: "google", client: client, detail: error.check.rawValue)
            throw error.apiError(provider: "Google")
        }
        let user = try await services.store.signIn(
            IdentityClaims(
                key: IdentityKey(issuer: identity.issuer, subject: identity.subject), displayName: identity.name.flatMap(Self.displayName),
                email: identity.email?.lowercased(), emailVerified: identity.emailVerified),
            fallbackName: Self.missingName, at: now())
        let lifetime = services.sessions.lifetimes.course
        let token = try await services.audit.signIn(user: user.id, method: "google", client: client) {
            try await services.sessions.startUnrefreshable(user: user, method: "google", lifetime: lifetime, client: client)
        }
        return JSONResponse.make(AddUserResponse(username: user.displayName, chatterID: token.secret, lifetime: Int(lifetime)))
    }

    func postAuth(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PostAuthRequest.self, context: context)
        try Self.checkLimits(name: nil, message: body.message)
        switch try await services.sessions.authenticate(body.chatterID) {
        case .unknown: throw APIError.unknownSession
        case .expired: throw APIError.expiredSession
        case .valid(let session):
            try await timeline.add(Chatt(name: session.user.displayName, message: body.message, time: now(), userID: session.user.id))
            return JSONResponse.make(EmptyResponse())
        }
    }

    static func checkLimits(name: String?, message: String) throws {
        if let name, name.exceeds(Limits.nameCharacters) {
            throw APIError.tooLong("\"name\" is longer than \(Limits.nameCharacters) characters.")
        }
        if message.exceeds(Limits.messageCharacters) {
            throw APIError.tooLong("\"message\" is longer than \(Limits.messageCharacters) characters.")
        }
    }

    /// Provider names are shortened to the limit rather than refused: the user cannot change what Google sends.
    /// Every name is cleaned (`DisplayText`) first, since pages show it to other people.
    static func displayName(_ name: String) -> String? {
        let trimmed = DisplayText.clean(name)
        guard !trimmed.isEmpty else { return nil }
        return trimmed.exceeds(Limits.nameCharacters) ? String(trimmed.prefix(Limits.nameCharacters - 1)) + "…" : trimmed
    }
}
