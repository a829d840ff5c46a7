// swift-tools-version:6.2
import PackageDescription

// bench/run's `--peer hummingbird`: Hummingbird alone answering chatterd's `GET /health`, the floor chatterd's
// own /health (the ceiling row) is compared against. Built by bench/peers.py, never by chatterd's package.
let package = Package(
    name: "hummingbird-peer",
    platforms: [.macOS(.v14)],
    dependencies: [
        // As chatterd's Package.swift declares it, traits included, so the framework is built the same way.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "hummingbird-peer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
