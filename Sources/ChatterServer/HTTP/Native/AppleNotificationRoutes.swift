import ChatterWire
import Foundation
import Hummingbird

/// Sign in with Apple's server-to-server notifications: Apple POSTs `{"payload": "<signed JWT>"}` whose
/// `events` claim says what the user did with their Apple ID.
struct AppleNotificationRoutes {
    let services: ChatterServices

    struct Notification: Decodable { var payload: String }

    struct Event: Decodable {
        var type: String
        var sub: String
    }

    func register(on router: Router<ChatterRequestContext>) {
        router.post(RouterPath(NativePath.appleNotifications)) { request, context in try await receive(request, context) }
    }

    func receive(_ request: Request, _ context: ChatterRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(Notification.self, context: context)
        let verified: VerifiedIdentity
        do {
            verified = try await services.apple.verify(body.payload, requireSubject: false)
        } catch {
            throw error.apiError(provider: "Apple")
        }
        guard let json = verified.events, let event = try? JSONDecoder().decode(Event.self, from: Data(json.utf8)) else {
            throw APIError.unprocessable("The notification has no readable \"events\" claim.")
        }
        // Apple may deliver a notification again, and anyone who saw one could replay it: each is acted on
        // once, remembered by its `jti` (or, lacking one, its digest) until it expires and would be refused
        // anyway — a day at least, a month at most.
        let id = verified.tokenID ?? SessionToken.hash(body.payload).map { String(format: "%02x", $0) }.joined()
        let now = services.now().timeIntervalSince1970
        let until = min(max(verified.expiresAt ?? 0, now + 86_400), now + 30 * 86_400)
        guard try await services.store.markNotificationSeen(jti: id, expiresAt: Date(timeIntervalSince1970: until)) else {
            context.logger.info("ignored an Apple notification already processed")
            return JSONResponse.make(EmptyResponse())
        }
        let key = IdentityKey(issuer: verified.issuer, subject: event.sub)
        let user = try await services.store.user(for: key)
        let client = context.client(request)
        switch event.type {
        case "consent-revoked":
            // The user stopped using Sign in with Apple with this app: end the sessions it started.
            if let user {
                try await services.store.revokeSessions(of: user.id, method: "apple")
                await services.audit.record(.appleConsentRevoked, user: user.id, method: "apple", client: client)
            }
        case "account-delete":
            if let userID = try await services.store.deleteIdentity(key) {
                try await services.store.revokeSessions(of: userID, method: "apple")
                await services.audit.record(.appleAccountDeleted, user: userID, method: "apple", client: client)
            }
        case "email-disabled", "email-enabled":
            try await services.store.setEmailForwarding(key, enabled: event.type == "email-enabled")
            await services.audit.record(.appleEmailChanged, user: user?.id, method: "apple", client: client, detail: event.type)
        default:
            context.logger.info("ignored an Apple notification", metadata: ["type": "\(event.type)"])
        }
        return JSONResponse.make(EmptyResponse())
    }
}
