import ChatterCore
import ChatterDomain
import ChatterStorage
import Foundation
import HTTPTypes
import Hummingbird

/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`: the files that let the
/// configured apps use this domain's passkeys. 404 when no app of that platform is configured.
struct WellKnownRoutes {
    let association: AppAssociation

    func register(on router: some RouterMethods<ChatterRequestContext>) {
        let apple = association.appleDocument.map(Self.response)
        let android = association.androidDocument.map(Self.response)
        router.get("/.well-known/apple-app-site-association") { _, _ in try apple ?? Self.notConfigured() }
        router.get("/.well-known/assetlinks.json") { _, _ in try android ?? Self.notConfigured() }
    }

    /// Made once: the files change only with the configuration. Public, and cached for an hour, as both
    /// platforms' fetchers expect (Apple's CDN re-fetches on its own schedule).
    static func response(_ document: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600", .xContentTypeOptions: "nosniff"],
            body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }

    static func notConfigured() throws -> Response {
        throw APIError(.notFound, .notFound, "No app of this platform is configured to share this domain's passkeys.")
    }
}
