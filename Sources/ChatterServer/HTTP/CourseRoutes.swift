import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird
import Logging

/// The course-compatible API. Shapes and status codes here must not change.
struct CourseRoutes {
    let timeline: Timeline
    let sessions: SessionService
    let providers: ProviderSignIn
    let signIn: SignInService
    let allowAnonymousPosting: Bool

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        // Course clients call these with and without a trailing slash; the router matches both.
        router.get("getchatts") { _, _ in JSONResponse.make(bytes: try await timeline.courseJSON()) }
        router.post("postchatt") { request, context in
            guard allowAnonymousPosting else { throw TimelineError.anonymousPostingDisabled }
            let body = try await request.decodeJSON(PostChattRequest.self, context: context)
            try await timeline.post(try Timeline.Draft(message: body.message, name: body.name), by: nil)
            return JSONResponse.make(EmptyResponse())
        }
        // The same Google sign-in as `/v1/auth/google`, answered with a chatterID that cannot be refreshed.
        router.post("adduser") { request, context in
            let body = try await request.decodeJSON(AddUserRequest.self, context: context)
            let client = context.client(request)
            let flow = try await providers.google(body.idToken, clientID: body.clientID, client: client)
            let (token, lifetime) = try await signIn.course(flow, client: client)
            return JSONResponse.make(AddUserResponse(username: flow.user.displayName, chatterID: token.secret, lifetime: Int(lifetime)))
        }
        router.post("postauth") { request, context in
            let body = try await request.decodeJSON(PostAuthRequest.self, context: context)
            let draft = try Timeline.Draft(message: body.message)
            let session = try await sessions.session(chatterID: body.chatterID)
            try await timeline.post(draft, by: session.user)
            return JSONResponse.make(EmptyResponse())
        }
    }
}
