/* run.h: executing guest code: the dispatch loop and synchronous guest traps. */
#ifndef X64EMU_RUN_H
#define X64EMU_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cpu.h"

/* Runs guest code from c->rip until something needs the caller: a system call, a fault,
 * an event (c->events), a breakpoint (not at the first instruction), c->icount reaching
 * c->icount_limit, a stop request, or, when until is not zero, rip reaching until.
 * Every stop is at an exact instruction boundary (a REP string instruction's iterations
 * are instructions). The OS layer (the Linux personality, or the embedder) handles the
 * reason and runs again; the core itself never calls it. When the machine's CPUs run
 * in parallel (Machine.parallel), the caller holds the machine's lock: cpu_run gives it
 * up while guest code runs and holds it again when it returns. */
StopReason cpu_run(Cpu *c, uint64_t until);

/* "0x401000: 0f 0b (ud2)": the instruction at rip, its bytes and Capstone's text, as
 * messages about an unimplemented instruction show it. */
void cpu_describe_insn(Cpu *c, uint64_t rip, char *buf, size_t size);

/* The hook records' handlers (block_hooks_set puts them there): the instruction hook's
 * before each watched instruction, the block hook's first in each block. */
void op_insn_hook(Cpu *c, const struct Insn *in);
void op_block_hook(Cpu *c, const struct Insn *in);

/* The record between two instructions of a block while the machine watches memory: a
 * stop that a memory hook asked for in the instruction before is taken there. */
void op_stop_check(Cpu *c, const struct Insn *in);

/* The first record of a watched block (Block.watched) that is not a one-instruction one:
 * where its code has changed since it was decoded, nothing of it runs: it is dropped, and
 * run_blocks takes over at its start, to decode it again. So a block compares its code
 * however it is entered, and the chains into all other blocks test nothing more. */
void op_code_check(Cpu *c, const struct Insn *in);

/* Makes cpu_run return `why`: at once from a hook, else once the current instruction's
 * block ends (a handler that ends its block, such as SYSCALL's), or at the next block
 * from another thread. */
static inline void cpu_request_stop(Cpu *c, StopReason why) {
  c->stop = why;
  cpu_raise_events(c, EV_STOP);
}

/* MXCSR or the x87 control word was loaded (LDMXCSR, FLDCW, FXRSTOR, XRSTOR, FLDENV,
 * FRSTOR, a signal frame, a debugger or the embedder): when that unmasks a floating-point
 * exception for the first time on its machine, the decoded code is dropped before the
 * next block and decoded again without leaving flags unrecorded (Decoder.fp_exceptions),
 * since SSE and x87 instructions may now fault. The loading instructions end their block. */
void cpu_fp_controls_loaded(Cpu *c);

/* A CPU of machine m in its power-on user state. */
void cpu_init(Cpu *c, struct Machine *m);

/* Puts the CPU in the state Linux starts a process in: flags 0x202, the general, vector
 * and x87 registers clear (FCW 0x037F, MXCSR 0x1F80), no XSAVE component in use. */
void cpu_reset(Cpu *c);
/* The vector and x87 state alone, as Linux clears it (fpu__clear_user_states) for a new
 * process, a signal handler and a sigreturn whose FPU state is bad: every register clear,
 * FCW 0x037F, MXCSR 0x1F80, no XSAVE component in use (measured: an XSAVE in a handler
 * writes XSTATE_BV 0). */
void cpu_fpu_reset(Cpu *c);

/* A synchronous fault of the current instruction (#DE, #UD, #GP, #PF, INT3...):
 * raises guest signal sig with si_code and si_addr; does not return. */
_Noreturn void guest_trap(Cpu *c, int sig, int code, uint64_t addr);

/* The same for traps, which report the address after the instruction (INT3). */
_Noreturn void guest_trap_next(Cpu *c, int sig, int code, uint64_t addr);

/* #GP(err) of the current instruction: the kernel's SIGSEGV, SI_KERNEL, address 0, with
 * trapno 13 and the error code in the signal frame. */
_Noreturn void guest_gp(Cpu *c, uint64_t err);
/* The area at a of FXSAVE, FXRSTOR or the XSAVE family is misaligned: #GP(0), but only
 * once the address is found canonical; a non-canonical one is #GP, or #SS through RSP or
 * RBP (SIGBUS), as the SDM's priorities put #SS first (measured; the SSE moves and
 * CMPXCHG16B check alignment first: sse_operand.h, move.c). */
_Noreturn void guest_misaligned(Cpu *c, uint64_t a);

#endif
