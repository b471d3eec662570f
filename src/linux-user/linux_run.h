/* linux_run.h: the Linux personality's run loop over the core's stop reasons, as QEMU's
 * linux-user cpu_loop is: system calls, faults and pending signals handled here. */
#ifndef X64EMU_LINUX_RUN_H
#define X64EMU_LINUX_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* Runs the guest until it exits (or dies of a signal: c->exit_status, c->term_signal),
 * or, when stop_rip is not zero, until a block boundary reaches stop_rip: true then. */
bool linux_run(Cpu *c, uint64_t stop_rip);

#endif
