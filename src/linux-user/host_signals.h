/* host_signals.h: the host kernel's signal calls, for all of its 64 signals.
 *
 * The host's C library keeps two real-time signals for itself (glibc: 32 to cancel
 * threads and for SIGEV_THREAD timers, 33 to run set*id calls on every thread): its
 * sigaction refuses them, and its sigprocmask and sigaddset leave them out. The guest's
 * C library uses the same two for the same ends (pthread_cancel, setuid in a threaded
 * program), so they must reach the guest's handlers as any other signal does. x64emu
 * itself uses neither (its set*id calls are the kernel's per-thread ones, and it cancels
 * no thread and makes no SIGEV_THREAD timer), so it makes these calls to the kernel
 * directly. Masks are the kernel's: signal n is bit n - 1. */
#ifndef X64EMU_HOST_SIGNALS_H
#define X64EMU_HOST_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

void host_sigmask_set(uint64_t mask);
uint64_t host_sigmask_get(void);
uint64_t host_sigpending(void);

/* Waits with mask as the thread's mask until a handler has run (rt_sigsuspend). */
void host_sigsuspend(uint64_t mask);

/* sig's disposition: handler (SA_SIGINFO's kind) with flags (SA_*) and mask; or the
 * default action or SIG_IGN, with flags (SA_NOCLDSTOP...). 0, or -1 with errno. */
int host_sigaction(int sig, void (*handler)(int, siginfo_t *, void *), int flags, uint64_t mask);
int host_sig_default(int sig, bool ignore, int flags);

/* The C library's own signals' actions back as they were before x64emu set them. */
void host_signals_give_back(void);

/* Whether the host ignores sig (SIG_IGN), as exec may pass it on. */
bool host_sig_ignored(int sig);

/* The first 64 signals of a C library's sigset_t (a kernel mask on every 64-bit Linux). */
uint64_t host_sigset_bits(const sigset_t *set);
void host_sigset_put(sigset_t *set, uint64_t mask);

#endif
