/* linux_run.h: the Linux personality's run loop over the core's stop reasons, as QEMU's
 * linux-user cpu_loop is: system calls, faults and pending signals handled here. */
#ifndef X64EMU_LINUX_RUN_H
#define X64EMU_LINUX_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* Runs the guest until it exits or dies of a signal (STOP_EXIT: c->exit_status,
 * c->term_signal), or until a stop that is its caller's: rip at until (when not zero),
 * a breakpoint, the instruction budget, a stop request. */
StopReason linux_run(Cpu *c, uint64_t until);

/* After a STOP_SIGNAL (Options.stop_signals: a debugger's), what becomes of the signal
 * it stopped for, before the next run: sig the same, delivered as it was; 0, dropped (a
 * fault's instruction runs again); another, that one delivered instead, as sent by this
 * process. */
void linux_signal_resume(Cpu *c, int sig);

#endif
