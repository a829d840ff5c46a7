import ArgumentParser
import ChatterCore
import ChatterDomain
import ChatterServer
import ChatterStorage
import Foundation
import NIOCore

/// How many password checks per second this machine can do: the figure to choose `--bcrypt-cost` by,
/// and the ceiling bench/run compares password sign-in with.
struct HashSpeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-speed",
        abstract: "Measure bcrypt verifications per second at a cost, on every core.")

    @Option(help: "bcrypt cost. [default: CHATTERD_BCRYPT_COST, else 12]")
    var cost: Int?
    @Option(help: "Threads hashing at once.")
    var threads = System.coreCount
    @Option(help: "Seconds to measure.")
    var seconds = 5.0
    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        var config = ServerConfiguration()
        try config.apply(environment: ProcessInfo.processInfo.environment)
        let cost = self.cost ?? Int(config.bcryptCost)
        guard (4...31).contains(cost) else { throw ValidationError("--cost must be between 4 and 31") }
        guard threads > 0, seconds > 0 else { throw ValidationError("--threads and --seconds must be positive") }
        let rate = try await PasswordHasher.throughput(cost: UInt8(cost), threads: threads, seconds: seconds)
        if json {
            print(#"{"cost":\#(cost),"threads":\#(threads),"seconds":\#(seconds),"hashes_per_second":\#(rate)}"#)
        } else {
            print(String(format: "bcrypt cost %d: %.2f verifications/s on %d threads (%.0f ms each)", cost, rate, threads, Double(threads) / rate * 1000))
        }
    }
}
