// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

// Every package below is for chatterd, the `chatter` tool and the tests, none for ChatterKit. Each use is
// guarded by the `Server` trait (on by default, so `swift run chatterd` and `swift test` are unchanged):
// an app that adds this package with `traits: []` resolves none of them (SE-0450 prunes a dependency
// used only under a disabled trait). `.ci/client-package` keeps it so.
let server = TargetDependencyCondition.when(traits: ["Server"])

let package = Package(
    name: "Chatter",
    platforms: [.macOS(.v14), .iOS(.v17), .watchOS(.v10), .tvOS(.v17), .visionOS(.v1)],
    products: [
        .library(name: "ChatterWire", targets: ["ChatterWire"]),
        .library(name: "ChatterKit", targets: ["ChatterKit"]),
        .library(name: "ChatterUI", targets: ["ChatterUI"]),
        .library(name: "ChatterServer", targets: ["ChatterServer"]),
        .executable(name: "chatterd", targets: ["chatterd"]),
        .executable(name: "chatter", targets: ["chatter"]),
    ],
    traits: [
        .trait(name: "Server", description: "chatterd, the chatter tool and the tests, with their dependencies"),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        // FullFoundation only: the ConfigurationSupport trait would pull swift-configuration, which chatterd does not use.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // Only its module map of the system's SQLite (GRDBSQLite): see Sources/ChatterStorage/SQLite/Connection.
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // Wire types shared by server and client: no dependencies, so apps can use them without NIO.
        .target(name: "ChatterWire", swiftSettings: strict),

        // chatterd's layers, one target each, so the compiler keeps them (docs/architecture.md): each may
        // use only those below it. Across them declarations are `package`, never `public` by accident.
        // The core: models, closed sets, errors, the repository protocols, tokens and general helpers.
        .target(
            name: "ChatterCore",
            dependencies: [
                "ChatterWire",
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "ExtrasBase64", package: "swift-extras-base64", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "Metrics", package: "swift-metrics", condition: server),
            ],
            swiftSettings: strict
        ),
        // The domain: every rule, in one folder per concern; no Hummingbird, no HTTP types.
        .target(
            name: "ChatterDomain",
            dependencies: [
                "ChatterCore", "ChatterWire",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth", condition: server),
                .product(name: "JWTKit", package: "jwt-kit", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: server),
                .product(name: "X509", package: "swift-certificates", condition: server),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "ExtrasBase64", package: "swift-extras-base64", condition: server),
            ],
            resources: [.copy("Resources/common-passwords.txt")],
            swiftSettings: strict
        ),
        // Storage: SQLite and PostgreSQL behind the core's repository protocols; it knows no domain type.
        .target(
            name: "ChatterStorage",
            dependencies: [
                "ChatterCore", "ChatterWire",
                .product(name: "GRDBSQLite", package: "GRDB.swift", condition: server),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
            ],
            swiftSettings: strict
        ),
        // The edge: the composition root (App), JSON routes (HTTP), pages (Web), Operations, TLS, the
        // listener's connections and the clients of other services (Outbound). It is chatterd as a library.
        .target(
            name: "ChatterServer",
            dependencies: [
                "ChatterCore", "ChatterDomain", "ChatterStorage", "ChatterWire",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: server),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: server),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth", condition: server),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "X509", package: "swift-certificates", condition: server),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOTLS", package: "swift-nio", condition: server),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "ExtrasBase64", package: "swift-extras-base64", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
                .product(name: "Mustache", package: "swift-mustache", condition: server),
                .product(name: "Metrics", package: "swift-metrics", condition: server),
                .product(name: "Prometheus", package: "swift-prometheus", condition: server),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/Web")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "chatterd",
            dependencies: [
                "ChatterServer", "ChatterCore", "ChatterDomain", "ChatterStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: server),
                .product(name: "Metrics", package: "swift-metrics", condition: server),
                .product(name: "Prometheus", package: "swift-prometheus", condition: server),
            ],
            swiftSettings: strict
        ),

        // The client SDK depends on Foundation only, so apps do not pull in NIO.
        // Its privacy manifest goes into the app with it (App Store Connect asks for one from SDKs).
        .target(name: "ChatterKit", dependencies: ["ChatterWire"], resources: [.copy("PrivacyInfo.xcprivacy")], swiftSettings: strict),
        // SwiftUI screens over ChatterKit's view models; every file is Apple-only, so elsewhere it builds to
        // nothing. `.ci/apple-typecheck` checks it on Linux against Tests/AppleStandIn.
        .target(name: "ChatterUI", dependencies: ["ChatterKit"], swiftSettings: strict),
        // The terminal client: async-http-client (with NIOSSL for the trusted certificate and the pin) lives
        // here only, never in ChatterKit.
        .executableTarget(
            name: "chatter",
            dependencies: [
                "ChatterKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: server),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "NIOTLS", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
            ],
            swiftSettings: strict
        ),

        // Test doubles both test targets use: a signing issuer, its JWKS listener, a manual clock.
        .target(
            name: "ChatterTestSupport",
            dependencies: [
                "ChatterServer", "ChatterCore", "ChatterDomain", "ChatterStorage",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "JWTKit", package: "jwt-kit", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: server),
                .product(name: "ExtrasBase64", package: "swift-extras-base64", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
                .product(name: "X509", package: "swift-certificates", condition: server),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: server),
            ],
            path: "Tests/ChatterTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ChatterServerTests",
            dependencies: [
                "ChatterServer", "ChatterCore", "ChatterDomain", "ChatterStorage",
                "ChatterTestSupport",
                // For ChildProcess only: the rendering tests hand pages to Python's HTML parser, and
                // AdminCommandTests run chatterd.
                "ChatterKit",
                // Built before the tests, so AdminCommandTests find it beside the test runner.
                "chatterd",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "JWTKit", package: "jwt-kit", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: server),
                .product(name: "X509", package: "swift-certificates", condition: server),
                .product(name: "GRDBSQLite", package: "GRDB.swift", condition: server),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: server),
                .product(name: "ExtrasBase64", package: "swift-extras-base64", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "Mustache", package: "swift-mustache", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                // For the TLS listener's handshakes only (TLSVersionTests).
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: server),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: server),
                .product(name: "Metrics", package: "swift-metrics", condition: server),
                .product(name: "Prometheus", package: "swift-prometheus", condition: server),
            ],
            // Read in place by the tests (see Support/Vectors.swift), not bundled.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        // The SDK and the terminal client against a live chatterd in the same process.
        .testTarget(
            name: "ChatterKitTests",
            dependencies: [
                "ChatterKit",
                "ChatterTestSupport",
                "chatter",
                "ChatterServer", "ChatterCore", "ChatterDomain", "ChatterStorage",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: server),
                .product(name: "ExtrasBase64", package: "swift-extras-base64", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "X509", package: "swift-certificates", condition: server),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: server),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: - Fuzzing (only with CHATTER_FUZZ set) ------------------------------------------------------------
// libFuzzer targets under Fuzz/, one executable each, depending only on the layers that hold their parser;
// `.ci/fuzz` builds and runs them (Fuzz/README.md). Two ways to instrument:
// - `CHATTER_FUZZ=deep` (`.ci/fuzz`'s default): `swift build --scratch-path .build-fuzz -Xswiftc
//   -sanitize=fuzzer,address` instruments every Swift module, dependencies too (a cold build of them all).
// - `CHATTER_FUZZ=project` (`.ci/fuzz --project`, CI): only chatterd's own modules are instrumented, here
//   through unsafeFlags, so the build reuses `.build`'s dependencies as `swift build` left them and compiles
//   chatterd's modules again (a later `swift build` compiles them back).
// Without the variable the package is exactly as above, so `swift build` and `swift test` never see them.
if let mode = Context.environment["CHATTER_FUZZ"] {
    let domain: [Target.Dependency] = ["ChatterCore", "ChatterDomain"]
    let edge: [Target.Dependency] = ["ChatterCore", "ChatterDomain", "ChatterServer", "ChatterWire"]
    let fuzzers: [(product: String, directory: String, dependencies: [Target.Dependency])] = [
        ("fuzz-id-token", "IDToken", domain),
        ("fuzz-jwks", "JWKS", domain),
        (
            "fuzz-request-bodies", "RequestBodies",
            edge + [
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
            ]
        ),
        ("fuzz-email-address", "EmailAddress", ["ChatterCore"]),
        (
            "fuzz-cookies", "Cookies",
            edge + [
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
            ]
        ),
        ("fuzz-forwarded", "Forwarded", ["ChatterCore"]),
        ("fuzz-smtp-reply", "SMTPReply", domain + [.product(name: "NIOCore", package: "swift-nio", condition: server)]),
        ("fuzz-web-forms", "WebForms", edge + [.product(name: "Mustache", package: "swift-mustache", condition: server)]),
        ("fuzz-cbor", "CBOR", domain),
        ("fuzz-passkey-responses", "PasskeyResponses", domain + ["ChatterWire", .product(name: "X509", package: "swift-certificates", condition: server)]),
        ("fuzz-device-binding", "DeviceBinding", domain),
        (
            "fuzz-second-factor", "SecondFactor",
            edge + [
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
            ]
        ),
    ]
    let sanitize: [SwiftSetting] = mode == "project" ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
    let link: [LinkerSetting] = mode == "project" ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
    if mode == "project" {
        for target in package.targets where ["ChatterWire", "ChatterCore", "ChatterDomain", "ChatterServer"].contains(target.name) {
            target.swiftSettings = (target.swiftSettings ?? []) + sanitize
        }
    }
    // The libFuzzer driver call and a way to run async code from the synchronous fuzz callback.
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: strict + sanitize))
    for fuzzer in fuzzers {
        package.targets.append(
            .executableTarget(
                name: "Fuzz" + fuzzer.directory, dependencies: ["FuzzSupport"] + fuzzer.dependencies,
                path: "Fuzz/" + fuzzer.directory, swiftSettings: strict + sanitize, linkerSettings: link))
        package.products.append(.executable(name: fuzzer.product, targets: ["Fuzz" + fuzzer.directory]))
    }
}
// MARK: - end of fuzzing ----------------------------------------------------------------------------------
