import Testing

@testable import ChatterCore
@testable import ChatterDomain
@testable import ChatterServer
@testable import ChatterStorage

@Suite struct MallocTuningTests {
    #if canImport(Glibc)
        /// Each setting glibc accepts is applied and named for the log; an operator's own variable, or
        /// the same tunable in GLIBC_TUNABLES, wins.
        @Test func eachSettingIsAppliedUnlessTheEnvironmentSetsIt() {
            #expect(MallocTuning.apply(environment: [:], cores: 2) == ["MALLOC_ARENA_MAX=4", "MALLOC_MMAP_THRESHOLD_=131072", "MALLOC_TRIM_THRESHOLD_=131072"])
            #expect(MallocTuning.apply(environment: ["MALLOC_ARENA_MAX": "8"], cores: 2) == ["MALLOC_MMAP_THRESHOLD_=131072", "MALLOC_TRIM_THRESHOLD_=131072"])
            #expect(
                MallocTuning.apply(environment: ["MALLOC_ARENA_MAX": "1", "MALLOC_MMAP_THRESHOLD_": "0", "MALLOC_TRIM_THRESHOLD_": "0"], cores: 16).isEmpty)
            #expect(
                MallocTuning.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=65536:glibc.malloc.arena_max=2"], cores: 2)
                    == ["MALLOC_MMAP_THRESHOLD_=131072"])
        }
    #endif
}
