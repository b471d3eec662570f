/* signals.h: guest signal state and delivery (the x86-64 kernel's behaviour). */
#ifndef X64EMU_SIGNALS_H
#define X64EMU_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"
#include "process.h"
#include "sigframe.h"
#include "sys_x64.h"

#define X64_SIG_DFL 0
#define X64_SIG_IGN 1
#define X64_SIGBIT(sig) (1ull << ((sig) - 1))

/* ---- delivery, called by the dispatch loop and the syscall shim ---- */

/* A synchronous signal raised by the current instruction (fault, trap, #DE...): runs the
 * guest's handler, or ends the process as the kernel would. c->rip is the faulting
 * instruction (the next one for a trap). */
void signals_deliver_sync(Cpu *c, int sig, int code, uint64_t addr);

/* A signal forced on the thread with its siginfo, as the kernel's force_sig_info: a
 * seccomp filter's SIGSYS. c->rip is where the handler returns to. */
void signals_deliver_forced(Cpu *c, const X64Siginfo *info);
/* The same for a fault the core stopped with, whose exception it may know better. */
void signals_deliver_fault(Cpu *c, const Fault *f);

/* Delivers asynchronous signals noted by the host handler (EV_SIGNAL). c->rip is the
 * next guest instruction. */
void signals_deliver_pending(Cpu *c);

/* A signal the emulator itself sends the guest (--deterministic's timers), as the kernel
 * generates one: dropped if ignored, else pending until the guest takes it. False if
 * an instance was pending already (a standard signal does not queue). */
bool signals_raise(Cpu *c, const X64Siginfo *info);
/* The same for another thread of c's process, whose host id is tid: false if it has
 * ended. */
bool signals_raise_in(Cpu *c, int32_t tid, const X64Siginfo *info);

/* For a debugger, which sees each signal before the guest does: the signal that
 * delivery would take next (0 if none), its delivery alone, or its discarding. */
int signals_next_due(Cpu *c);
void signals_deliver_one(Cpu *c, int sig);
void signals_discard(Cpu *c, int sig);

/* A system call returned -EINTR: delivery decides whether it restarts (SA_RESTART). */
void signals_syscall_interrupted(Cpu *c, uint64_t nr);

/* The host's signal dispositions and mask mirror one guest's, so one Linux guest runs per
 * host process: claiming says whether this one may (the library's Linux machines), and
 * releasing detaches it (the dispositions it set stay). */
bool signals_host_claim(void);
void signals_host_release(void);

/* A new thread's signal state (the creator's mask, no alternate stack, nothing pending);
 * its host thread's start (signals noted for it); its end. */
void signals_thread_init(Cpu *child, Cpu *parent);
void signals_thread_attach(Cpu *c);
void signals_thread_detach(Cpu *c);

/* fork: the child starts with none of the parent's pending signals, but keeps those sent
 * to it as soon as it exists (a kill right after fork), which may reach it before its
 * state is the child's. Around the fork the host's signals are held and what this thread
 * had taken is noted; the parent then gets its mask back, and the child drops only what
 * was the parent's. */
typedef struct SignalsFork {
  uint64_t mask, taken;
} SignalsFork;
SignalsFork signals_fork_begin(Cpu *c);
void signals_fork_parent(const SignalsFork *f);
void signals_forked_child(Cpu *c, const SignalsFork *f);

/* execve is about to replace the emulator: signals taken from the host but not yet
 * delivered (the guest blocks them) go back to the host, where they stay pending. */
void signals_before_exec(void);

/* ---- the state, for the system calls (sys_signal.c) ---- */

/* The disposition of sig (1..64); with act, replaces it (the caller refuses SIGKILL and
 * SIGSTOP). */
void signals_action(Cpu *c, int sig, const X64Sigaction *act, X64Sigaction *old);

uint64_t signals_mask(Cpu *c);
void signals_set_mask(Cpu *c, uint64_t mask);

/* Blocked signals that are pending. */
uint64_t signals_pending(Cpu *c);

/* Takes a pending signal of set that the guest blocks: its number (0 if none) and its
 * 128-byte siginfo. */
int signals_take_blocked(Cpu *c, uint64_t set, void *info);
/* The 128-byte siginfo of a signal the host's own sigtimedwait took, made the guest's. */
void signals_host_dequeued(Cpu *c, void *info);

/* Whether a signal taken from the host waits for its handler (it interrupts waits). */
bool signals_handler_due(Cpu *c);

/* rt_sigsuspend (with mask) and pause (without): waits until a handler is due to run.
 * Returns -EINTR; the mask in force before goes back once the handler has run. */
int64_t signals_suspend(Cpu *c, const uint64_t *mask);

/* ppoll and pselect6 with a signal mask, which is the guest's for the wait: the host
 * mask to wait with, and false if a handler is due already (the call is then
 * interrupted without waiting). The wait's end restores the mask, or when interrupted
 * leaves it for the handler to run with. */
bool signals_wait_mask_begin(Cpu *c, uint64_t mask, uint64_t *host_mask);
void signals_wait_mask_end(Cpu *c, bool interrupted);

/* sigaltstack at stack pointer sp: 0 or -errno; *old gets the settings before. */
int signals_altstack(Cpu *c, uint64_t sp, const X64StackT *ss, X64StackT *old);

/* rt_sigreturn: the value for rax (the interrupted code's own). */
int64_t signals_sigreturn(Cpu *c);

#endif
