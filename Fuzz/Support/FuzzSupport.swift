import Dispatch

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
public func runLibFuzzer(_ callback: FuzzCallback) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
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
