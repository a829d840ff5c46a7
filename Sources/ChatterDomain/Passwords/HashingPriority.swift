import ChatterCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Hashing threads run under Linux's SCHED_IDLE policy (nice 19 where that is refused): bcrypt then uses
/// every core the server is not using, and a request waking up preempts it instead of waiting for a
/// 250 ms hash to yield its time slice.
package enum HashingPriority {
    private static let lowered = ThreadSpecificVariable<Marker>()
    /// SCHED_IDLE from <linux/sched.h> (Glibc hides it from Swift); part of the kernel's stable ABI.
    private static let schedIdle: Int32 = 5
    private final class Marker: Sendable {}

    package static func lowerCurrentThread() {
        #if os(Linux)
            guard lowered.currentValue == nil else { return }
            // On Linux scheduling policy and nice value belong to the thread; 0 names the calling thread.
            var param = sched_param(sched_priority: 0)
            if sched_setscheduler(0, schedIdle, &param) != 0 {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            }
            lowered.currentValue = Marker()
        #endif
    }
}
