import ChatterCore
import ChatterDomain
import ChatterStorage

#if canImport(Glibc)
    import Glibc
#endif

/// How glibc's allocator is set up for a long-running server (chatterd calls `apply()` once, at start).
///
/// glibc's defaults suit short programs. Found with `bench/soak` (see BENCHMARKS.md, "Memory"):
/// - **One arena per thread that ever contended**, up to eight per core. Each keeps the memory freed into it,
///   and NIO's, the concurrency pool's and SQLite's threads each allocate: two arenas per core hold the heap
///   as flat with the same speed.
/// - **A moving threshold for `mmap`.** Blocks from 128 KiB are mapped and unmapped on free, but each such
///   free raises the threshold to that block's size (up to 32 MiB), after which blocks that size come from
///   the heap and stay there. The course list (`/getchatts`) is such a block, rebuilt after every post and a
///   little larger each time: with the threshold fixed, each one goes back to the system when freed.
///
/// An operator's own `MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_` or `MALLOC_TRIM_THRESHOLD_`, or the same
/// setting in `GLIBC_TUNABLES`, wins.
public enum MallocTuning {
    /// Arenas per core.
    static let arenasPerCore = 2
    /// Blocks this large or larger are mapped (glibc's starting value, kept).
    static let mmapThreshold = 128 * 1024
    /// Free memory at the heap's top beyond this goes back to the system (glibc's starting value, kept).
    static let trimThreshold = 128 * 1024

    /// Applies the settings the environment does not set itself, and names what it set (for the start-up log).
    @discardableResult
    public static func apply(environment: [String: String], cores: Int) -> [String] {
        #if canImport(Glibc)
            var applied: [String] = []
            // The parameters' numbers, from glibc's <malloc.h> (M_ARENA_MAX, M_MMAP_THRESHOLD, M_TRIM_THRESHOLD);
            // what each does: mallopt(3), https://man7.org/linux/man-pages/man3/mallopt.3.html
            // Each can also be set as a tunable in GLIBC_TUNABLES (https://www.gnu.org/software/libc/manual/html_node/Memory-Allocation-Tunables.html).
            let settings: [(variable: String, tunable: String, parameter: Int32, value: Int)] = [
                ("MALLOC_ARENA_MAX", "glibc.malloc.arena_max", -8, max(1, cores) * arenasPerCore),
                ("MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", -3, mmapThreshold),
                ("MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", -1, trimThreshold),
            ]
            // GLIBC_TUNABLES is `name=value` pairs separated by colons.
            let tunables = Set((environment["GLIBC_TUNABLES"] ?? "").split(separator: ":").map { String($0.prefix { $0 != "=" }) })
            // Swift's Glibc module leaves out <malloc.h>, so glibc's own `mallopt` is looked up by name.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return [] }  // RTLD_DEFAULT
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            for setting in settings where environment[setting.variable] == nil && !tunables.contains(setting.tunable) {
                if mallopt(setting.parameter, Int32(setting.value)) == 1 { applied.append("\(setting.variable)=\(setting.value)") }
            }
            return applied
        #else
            return []
        #endif
    }
}
