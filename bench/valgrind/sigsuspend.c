/* Preloaded into chatterd under valgrind by `bench/run --callgrind`.
 *
 * Swift's async main ends in dispatch_main(), whose main thread waits in sigsuspend() on a signal mask
 * libdispatch keeps in read-only memory. Valgrind 3.19 (Debian 12's) edits the mask it is given in place
 * before passing it on, and dies writing to that page ("VALGRIND INTERNAL ERROR: Valgrind received a
 * signal 11"). This sigsuspend hands the kernel a copy on the stack instead; it is otherwise the same call. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
