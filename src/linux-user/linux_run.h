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

#endif
