/* signals.h: guest signal state and delivery (the x86-64 kernel's behaviour). */
#ifndef X64EMU_SIGNALS_H
#define X64EMU_SIGNALS_H

#include <stdint.h>

#include "../interp/cpu.h"

/* A synchronous signal raised by the current instruction (fault, trap, #DE...): runs the
 * guest's handler, or ends the process as the kernel would. c->rip is the faulting
 * instruction. */
void signals_deliver_sync(Cpu *c, int sig, int code, uint64_t addr);

/* Delivers asynchronous signals noted by the host handler (EV_SIGNAL). */
void signals_deliver_pending(Cpu *c);

#endif
