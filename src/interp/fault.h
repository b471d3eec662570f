/* fault.h: turning host faults on guest memory into guest signals.
 *
 * Code that touches guest memory sets fault_landing; the host SIGSEGV/SIGBUS handler
 * records the address and jumps there. Outside such code a fault is the emulator's own
 * bug and is reported as one.
 *
 * This is the core's one process-wide part, because the host has one handler per signal
 * for the whole process: the handler, the landing and last fault of each host thread
 * (thread-local), and where sent signals go (set once by the Linux personality). Every
 * other mutable state lives in a Machine or a Cpu. */
#ifndef X64EMU_FAULT_H
#define X64EMU_FAULT_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

extern __thread sigjmp_buf *fault_landing;
extern __thread uint64_t fault_addr;  /* si_addr of the last guest fault */
extern __thread int fault_code;       /* si_code of the last guest fault */
extern __thread uint64_t fault_err;   /* the host's page-fault error code (x86-64 hosts), or 0 */
extern __thread int fault_write;      /* whether it was a write (aarch64 hosts), -1 unknown */
/* Set around a probe for writing that must read first (probe_write8 off x86-64): a fault
 * in it is a write's. The host handler clears it. */
extern __thread bool fault_probing_write;

/* Where a SIGSEGV or SIGBUS sent by kill/tgkill/sigqueue (not a fault) goes: the guest's
 * signal state takes it when set. */
extern void (*fault_user_signal)(int sig, siginfo_t *si, void *uc);

void fault_install(void);

/* Copies up to n bytes of guest memory; returns how many could be read. */
unsigned fault_copy_in(void *dst, uint64_t src, unsigned n);
/* Writes n bytes to guest memory up to the first fault; returns how many it wrote. */
unsigned fault_copy_out(uint64_t dst, const void *src, unsigned n);

#endif
