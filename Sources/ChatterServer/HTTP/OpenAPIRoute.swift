import ChatterCore
import ChatterDomain
import ChatterStorage
import ChatterWire
import Foundation
import Hummingbird

/// Serves the OpenAPI 3.1 description of the native API (Resources/openapi.json, kept in the repository).
enum OpenAPIRoute {
    // fail-closed: a document that cannot be read is nil: the route answers 404
    static let document: ByteBuffer? = Bundle.module.url(forResource: "openapi", withExtension: "json")
        .flatMap { try? Data(contentsOf: $0) }.map { ByteBuffer(bytes: $0) }

    static func register(on router: Router<ChatterRequestContext>) {
        router.get(RouterPath(NativePath.openAPI)) { _, _ in
            guard let document else { throw APIError(.notFound, .notFound, "This build has no OpenAPI document.") }
            return JSONResponse.make(bytes: document)
        }
    }
}
