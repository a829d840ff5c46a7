import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// Sign in with Apple's server-to-server notifications: Apple POSTs `{"payload": "<signed JWT>"}`.
struct AppleNotificationRoutes {
    let notifications: AppleNotifications

    struct Notification: Decodable { var payload: String }

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.appleNotifications)) { request, context in
            let body = try await request.decodeJSON(Notification.self, context: context)
            try await notifications.receive(body.payload, client: context.client(request), logger: context.logger)
            return JSONResponse.make(EmptyResponse())
        }
    }
}
