import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libFuzzer's driver, from the runtime that `-sanitize=fuzzer` links in.
///
/// SwiftPM compiles an executable's top-level code as `<Module>_main` and links `main` as an alias of it,
/// so libFuzzer's own `main` is never used: each target's main.swift calls `runLibFuzzer` instead, which
/// hands libFuzzer the command line and the target's `LLVMFuzzerTestOneInput`.
// swift-format-ignore: AlwaysUseLowerCamelCase
// libFuzzer's C symbol, under its own name.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// The type of `LLVMFuzzerTestOneInput`.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

/// Runs libFuzzer (all its flags come from the command line) and exits with its status.
///
/// First it feeds the target a few of its seed inputs outside libFuzzer's watch: a first call pays once for
/// what the process sets up lazily (type metadata, key sets, certificates parsed from fixtures), which in this
/// sanitized debug build can take longer than `-timeout` allows a single input, and would be reported as a
/// slow input when it is not one.
public func runLibFuzzer(_ callback: FuzzCallback) -> Never {
    warmUp(callback)
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}

/// Calls `callback` with up to eight seed files of each corpus directory on the command line, leaving out
/// the inputs kept because they failed (`crash-`, `timeout-`, `slow-unit-`…), which libFuzzer must report.
private func warmUp(_ callback: FuzzCallback) {
    let files = FileManager.default
    for argument in CommandLine.arguments.dropFirst() where !argument.hasPrefix("-") {
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue,
            let names = try? files.contentsOfDirectory(atPath: argument)
        else { continue }
        let seeds = names.sorted().filter { name in !["crash-", "timeout-", "slow-unit-", "leak-", "oom-"].contains { name.hasPrefix($0) } }
        for name in seeds.prefix(8) {
            guard let data = files.contents(atPath: argument + "/" + name) else { continue }
            var bytes = [UInt8](data)
            if bytes.isEmpty { bytes = [0] }
            _ = bytes.withUnsafeBufferPointer { callback($0.baseAddress!, data.count) }
        }
    }
}

/// The input as an array (libFuzzer owns the buffer only for the duration of the call).
public func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// Crashes with `message` when an invariant the code promises does not hold: a finding, not a harness error.
public func invariant(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError("fuzz invariant violated: \(message())", file: file, line: line) }
}

private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}

/// Runs `body` to completion on the concurrency runtime's pool and waits for it on this (libFuzzer's)
/// thread, which is not one of the pool's, so the wait cannot starve it. The semaphore orders the write of
/// the result before its read.
public func blocking<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let box = ResultBox<Value>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    guard let value = box.value else { fatalError("blocking: the task finished without a result") }
    return value
}
