import Foundation

/// The path of executable `name` as this build made it: beside the test runner, in the build folder. Test
/// targets that run one list it among their dependencies, so `swift test` builds it first.
public func builtProduct(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}
