import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// The native timeline: paginated newest first, so its cost stays flat as chatts accumulate.
struct ChattRoutes {
    let timeline: Timeline

    func register(on router: some RouterMethods<ChatterRequestContext>, signedIn: some RouterMethods<ChatterRequestContext>) {
        router.get(RouterPath(NativePath.chatts)) { request, _ in
            let query = request.uri.queryParameters
            let limit = try Timeline.pageSize(query.get("limit"))
            let before = try Timeline.cursor(query.get("before"))
            return JSONResponse.make(bytes: try await timeline.pageJSON(before: before, limit: limit))
        }
        signedIn.post(RouterPath(NativePath.chatts)) { request, context in
            let session = try context.requireSession()
            let body = try await request.decodeJSON(NewChattRequest.self, context: context)
            let chatt = try await timeline.post(try Timeline.Draft(message: body.message), by: session.user)
            return JSONResponse.make(
                ChattItem(id: chatt.id.text, userID: chatt.userID?.text, name: chatt.name, message: chatt.message, time: chatt.time.timeIntervalSince1970),
                status: .created)
        }
    }
}
