/* run.h: executing guest code: the dispatch loop and synchronous guest traps. */
#ifndef X64EMU_RUN_H
#define X64EMU_RUN_H

#include <stdint.h>

#include "cpu.h"

/* Runs guest code from c->rip until the guest exits (EV_EXIT) or, when stop_rip is not
 * zero, until a block boundary reaches stop_rip. */
void cpu_run(Cpu *c, uint64_t stop_rip);

/* Puts the CPU in its power-on user state: flags 0x202, MXCSR 0x1F80, x87 initialized. */
void cpu_reset(Cpu *c);

/* A synchronous fault of the current instruction (#DE, #UD, #GP, #PF, INT3...):
 * raises guest signal sig with si_code and si_addr; does not return. */
_Noreturn void guest_trap(Cpu *c, int sig, int code, uint64_t addr);

/* The same for traps, which report the address after the instruction (INT3). */
_Noreturn void guest_trap_next(Cpu *c, int sig, int code, uint64_t addr);


#endif
