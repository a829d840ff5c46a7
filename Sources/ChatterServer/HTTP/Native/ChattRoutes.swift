import ChatterWire
import Foundation
import Hummingbird

/// The native timeline: paginated newest first, so its cost stays flat as chatts accumulate.
struct ChattRoutes {
    let services: ChatterServices
    let authenticator: Authenticator
    let timeline: Timeline

    func register(on router: Router<ChatterRequestContext>) {
        router.get(RouterPath(NativePath.chatts)) { request, _ in try await page(request) }
        router.post(RouterPath(NativePath.chatts)) { request, context in try await post(request, context) }
    }

    func page(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let limit = try query.get("limit").map { text -> Int in
            guard let value = Int(text), (1...Timeline.maximumPage).contains(value) else {
                throw APIError(.badRequest, "invalid_limit", "\"limit\" must be between 1 and \(Timeline.maximumPage).")
            }
            return value
        } ?? Timeline.defaultPage
        let before = try query.get("before").map { text -> UUID in
            guard let id = UUID(uuidString: text) else { throw APIError(.badRequest, "invalid_cursor", "\"before\" must be a chatt id.") }
            return id
        }
        return JSONResponse.make(bytes: try await timeline.pageJSON(before: before, limit: limit))
    }

    func post(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let (session, _) = try await authenticator.require(request)
        let body = try await request.decodeJSON(NewChattRequest.self, context: context)
        try CourseRoutes.checkLimits(name: nil, message: body.message)
        let chatt = Chatt(name: session.user.displayName, message: body.message, time: services.now(), userID: session.user.id)
        try await timeline.add(chatt)
        return JSONResponse.make(
            ChattItem(id: chatt.id.text, userID: chatt.userID?.text, name: chatt.name, message: chatt.message, time: chatt.time.timeIntervalSince1970),
            status: .created)
    }
}
