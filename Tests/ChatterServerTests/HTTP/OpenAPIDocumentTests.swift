import ChatterWire
import Foundation
import Hummingbird
import Synchronization
import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

/// The OpenAPI document served at /openapi.json: valid JSON, OpenAPI 3.1, and it documents exactly the routes
/// the router registers, so a route added without documenting it (or removed without updating it) fails here.
@Suite struct OpenAPIDocumentTests {
    /// Every operation the server offers, from the wire constants clients use, plus the course API and meta routes.
    static let expectedOperations: Set<String> = [
        "GET /health",
        "GET \(NativePath.openAPI)",
        // The course API.
        "GET /getchatts",
        "POST /postchatt",
        "POST /adduser",
        "POST /postauth",
        // The native API.
        "GET \(NativePath.passwordPolicy)",
        "POST \(NativePath.google)",
        "POST \(NativePath.apple)",
        "POST \(NativePath.emailCode)",
        "POST \(NativePath.emailVerify)",
        "POST \(NativePath.passwordSignUp)",
        "POST \(NativePath.passwordSignIn)",
        "POST \(NativePath.passwordReset)",
        "POST \(NativePath.passwordChange)",
        "POST \(NativePath.refresh)",
        "POST \(NativePath.signOut)",
        "POST \(NativePath.webSession)",
        "GET \(NativePath.webSession)/redeem",
        "GET \(NativePath.webSession)/csrf",
        "GET \(NativePath.me)",
        "DELETE \(NativePath.me)",
        "GET \(NativePath.sessions)",
        "DELETE \(NativePath.sessions)/{id}",
        "GET \(NativePath.accountHistory)",
        "GET \(NativePath.chatts)",
        "POST \(NativePath.chatts)",
        "POST \(NativePath.appleNotifications)",
        "POST \(NativePath.passkeyRegisterOptions)",
        "POST \(NativePath.passkeyRegister)",
        "POST \(NativePath.passkeySignUpOptions)",
        "POST \(NativePath.passkeySignUp)",
        "POST \(NativePath.passkeySignInOptions)",
        "POST \(NativePath.appAttestChallenge)",
        "POST \(NativePath.appAttestKeys)",
        "POST \(NativePath.passkeySignIn)",
        "POST \(NativePath.passkeyStepUpOptions)",
        "POST \(NativePath.passkeyStepUp)",
        "GET \(NativePath.passkeys)",
        "PATCH \(NativePath.passkeys)/{id}",
        "DELETE \(NativePath.passkeys)/{id}",
        "GET \(NativePath.secondFactor)",
        "POST \(NativePath.secondFactorEnrol)",
        "POST \(NativePath.secondFactorConfirm)",
        "POST \(NativePath.recoveryCodes)",
        "POST \(NativePath.secondFactorDisable)",
        "POST \(NativePath.stepUp)",
        "POST \(NativePath.secondStep)",
    ]

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// What a live server answered, taken out of the harness so that assertions (which may throw) run after the
    /// server has stopped cleanly.
    struct Served: Sendable {
        var status: Int
        var contentType: String?
        var body: Data
        /// "METHOD /path" of every route the router registers.
        var registered: Set<String>
        /// "METHOD /path" → (status, whether it carried a WWW-Authenticate challenge) for a request without credentials.
        var anonymous: [String: Anonymous]
    }

    struct Anonymous: Sendable {
        var status: Int
        var challenged: Bool
    }

    static func serve(probeAnonymously: Bool = false) async throws -> Served {
        let served = Mutex<Served?>(nil)
        try await Harness.run { h async throws in
            let response = try await h.get(NativePath.openAPI)
            let router = ChatterApp.router(configuration: ServerConfiguration(), services: h.services)
            var anonymous: [String: Anonymous] = [:]
            if probeAnonymously {
                for operation in expectedOperations {
                    let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
                    guard let method = HTTPRequest.Method(parts[0]) else { continue }
                    let uri = parts[1].replacingOccurrences(of: "{id}", with: UUID().uuidString)
                    let answer = try await h.client.execute(uri: uri, method: method, headers: [.contentType: "application/json"])
                    anonymous[operation] = Anonymous(status: Int(answer.status.code), challenged: answer.headers[.wwwAuthenticate] != nil)
                }
            }
            let result = Served(
                status: Int(response.status.code), contentType: response.headers[.contentType], body: Data(String(buffer: response.body).utf8),
                registered: Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" }.filter(Self.isAPI)), anonymous: anonymous)
            served.withLock { $0 = result }
        }
        return try #require(served.withLock { $0 })
    }

    static func document(_ served: Served) throws -> [String: Any] {
        try #require(served.status == 200)
        #expect(served.contentType?.hasPrefix("application/json") == true)
        let json = try JSONSerialization.jsonObject(with: served.body)
        return try #require(json as? [String: Any], "the document is not a JSON object")
    }

    /// "METHOD /path" for every operation in the document.
    /// The document covers the JSON APIs; the web pages (`/`, `/auth…`, `/account…`, `/post`, `/static…`) are HTML.
    static func isAPI(_ operation: String) -> Bool {
        let path = operation.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
        return ["/v1/", "/getchatts", "/postchatt", "/adduser", "/postauth", "/health", "/openapi.json"].contains { path.hasPrefix($0) }
    }

    static func operations(in document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: Any], "the document has no paths")
        var operations: Set<String> = []
        for (path, item) in paths {
            let item = try #require(item as? [String: Any], "\(path) is not a path item")
            for method in methods where item[method] != nil { operations.insert("\(method.uppercased()) \(path)") }
        }
        return operations
    }

    @Test func servedDocumentIsOpenAPI31() async throws {
        let document = try Self.document(try await Self.serve())
        let version = try #require(document["openapi"] as? String)
        #expect(version.hasPrefix("3.1."), "openapi is \(version)")
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["title"] as? String == "chatterd")
        #expect(info["version"] is String)
        let components = try #require(document["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: Any])
        let bearer = try #require(schemes["bearerAuth"] as? [String: Any])
        #expect(bearer["type"] as? String == "http" && bearer["scheme"] as? String == "bearer")
        let cookie = try #require(schemes["cookieAuth"] as? [String: Any])
        #expect(cookie["in"] as? String == "cookie" && cookie["name"] as? String == SessionAuthenticator.cookieName)
    }

    @Test func documentListsEveryRegisteredRoute() async throws {
        let served = try await Self.serve()
        let documented = try Self.operations(in: try Self.document(served))
        let registered = served.registered
        #expect(registered.subtracting(documented).isEmpty, "registered but not documented: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty, "documented but not registered: \(documented.subtracting(registered).sorted())")
        #expect(
            Self.expectedOperations.subtracting(registered).isEmpty,
            "expected but not registered: \(Self.expectedOperations.subtracting(registered).sorted())")
        #expect(
            Self.expectedOperations.subtracting(documented).isEmpty,
            "expected but not documented: \(Self.expectedOperations.subtracting(documented).sorted())")
    }

    /// Every operation that challenges a request without credentials (401 with WWW-Authenticate) declares a
    /// security scheme and documents its 401; the others declare none.
    @Test func operationsThatNeedASessionDeclareSecurity() async throws {
        let served = try await Self.serve(probeAnonymously: true)
        let paths = try #require(try Self.document(served)["paths"] as? [String: Any])
        for (operation, answer) in served.anonymous.sorted(by: { $0.key < $1.key }) {
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            guard let entry = (paths[parts[1]] as? [String: Any])?[parts[0].lowercased()] as? [String: Any] else {
                Issue.record("\(operation) is not documented")
                continue
            }
            let schemes = (entry["security"] as? [[String: Any]] ?? []).flatMap(\.keys)
            if answer.status == 401 && answer.challenged {
                #expect(!schemes.isEmpty, "\(operation) answers 401 without credentials but declares no security")
                #expect((entry["responses"] as? [String: Any])?["401"] != nil, "\(operation) does not document its 401")
            } else {
                #expect(schemes.isEmpty, "\(operation) declares \(schemes) but answers \(answer.status) without credentials")
            }
        }
    }

    /// The document's error codes are ChatterWire's catalog, which chatterd writes from and ChatterKit reads:
    /// schemathesis then refuses any answer whose code is outside it.
    @Test func theDocumentedErrorCodesAreTheCatalog() async throws {
        let document = try Self.document(try await Self.serve())
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let error = try #require(((schemas["ErrorBody"] as? [String: Any])?["properties"] as? [String: Any])?["error"] as? [String: Any])
        let documented = try #require(error["enum"] as? [String])
        #expect(documented == ErrorCode.allCases.map(\.rawValue))
    }

    /// Guards `expectedOperations`: a new `NativePath` constant must be added there (and so be documented).
    @Test func everyNativePathConstantIsExpected() throws {
        let source = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ChatterWire/NativeAPI.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        let enumBody = try #require(text.range(of: "public enum NativePath {").map { text[$0.upperBound...] }?.split(separator: "}").first)
        let constants = enumBody.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("public static let"), let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(constants.count >= 17)
        let expectedPaths = Set(Self.expectedOperations.map { String($0.split(separator: " ", maxSplits: 1)[1]) })
        for constant in constants {
            #expect(expectedPaths.contains(constant), "NativePath \(constant) has no operation in OpenAPIDocumentTests.expectedOperations")
        }
    }
}
