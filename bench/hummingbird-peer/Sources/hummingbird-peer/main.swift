// The framework's own floor for bench/run (`--peer hummingbird`, bench/peers.py): a Hummingbird application
// with one route, `GET /health`, answering exactly what chatterd's /health answers (ChatterApp's HealthRoute:
// 200, `Content-Type: application/json`, `{"status":"ok"}`) and nothing else. chatterd's /health, the
// benchmark's ceiling row, is measured against it: what chatterd adds on its cheapest answer (its middleware,
// request context, connection deadlines and cap, metrics) is the difference between the two.
//
// Usage: hummingbird-peer PORT (listens on 127.0.0.1 only).
import Foundation
import Hummingbird
import Logging

guard CommandLine.arguments.count == 2, let port = Int(CommandLine.arguments[1]) else {
    print("usage: hummingbird-peer PORT")
    exit(2)
}

/// Built once, as chatterd's is: the same status, header and body bytes.
enum Health {
    static let response = Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"status\":\"ok\"}")))
}

let router = Router()
router.get("health") { _, _ in Health.response }

// As chatterd (Serve.swift) with its defaults: text logs to standard error at level info, so no line per request;
// the default event loop group (Hummingbird's singleton, a thread per core), which chatterd does not change
// either; and the same server name, so the answer carries the same `Server` header, byte for byte.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .info
    return handler
}
let logger = Logger(label: "hummingbird-peer")
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "chatterd"), logger: logger)
// Stops on SIGTERM or SIGINT (swift-service-lifecycle), as bench/peers.py stops it.
try await app.runService()
