/* cpu.h: the guest's architectural state (registers, lazy flags, SSE, x87) and run state. */
#ifndef X64EMU_CPU_H
#define X64EMU_CPU_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

/* General register numbers, in x86 encoding order. */
enum {
  RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI,
  R8, R9, R10, R11, R12, R13, R14, R15,
};
/* Byte-register numbers above 15 name AH, CH, DH, BH (legacy high bytes, no REX). */
enum { REG_AH = 16, REG_CH, REG_DH, REG_BH };
/* An absent base or index register of a memory operand: Cpu.r[REG_NONE] is always 0. */
#define REG_NONE 16

/* RFLAGS bits. */
enum {
  F_CF = 1u << 0, F_PF = 1u << 2, F_AF = 1u << 4, F_ZF = 1u << 6,
  F_SF = 1u << 7, F_TF = 1u << 8, F_IF = 1u << 9, F_DF = 1u << 10,
  F_OF = 1u << 11, F_AC = 1u << 18, F_ID = 1u << 21,
};
#define F_ARITH (F_CF | F_PF | F_AF | F_ZF | F_SF | F_OF)

/* The operation that last set the arithmetic flags: flags are computed from it only
 * when something reads them (DESIGN.md, "Lazy flags"). */
enum LazyOp {
  LF_NONE,  /* arithmetic flags are already in Cpu.rflags */
  LF_ADD, LF_ADC, LF_SUB, LF_SBB, /* res = a op b (op cin) */
  LF_LOGIC,                       /* AND/OR/XOR/TEST: CF = OF = AF = 0 */
  LF_INC, LF_DEC,                 /* like ADD/SUB of 1, CF kept in cin */
  LF_SHL, LF_SHR, LF_SAR,         /* a shifted by b (1..63) */
};

typedef struct LazyFlags {
  uint64_t res, a, b; /* a is recorded for shifts only (flags.h: lazy_set, lazy_a) */
  uint8_t op;   /* enum LazyOp */
  uint8_t size; /* operand size in bytes */
  uint8_t cin;  /* carry in (ADC/SBB) or preserved CF (INC/DEC) */
} LazyFlags;

typedef union Xmm {
  uint8_t b[16];
  uint16_t w[8];
  uint32_t d[4];
  uint64_t q[2];
  int8_t sb[16];
  int16_t sw[8];
  int32_t sd[4];
  int64_t sq[2];
  float f[4];
  double fd[2];
} __attribute__((aligned(16))) Xmm;

/* x87 state: registers kept as host long double in physical order st(i) = st[(top+i)&7].
 *
 * The MMX registers are the significands of the physical registers: for each register
 * in the `raw` mask, mm[p] and mm_se[p] (sign and exponent) hold its exact 80 bits and
 * st[p] is stale. MMX instructions work on mm[] with every register raw; the next x87
 * instruction converts them back (x87_settle). Images loaded from memory (FXRSTOR, FRSTOR,
 * sigreturn) are kept raw too, so that every bit pattern survives. */
typedef struct X87 {
  long double st[8];
  uint64_t mm[8];
  uint16_t mm_se[8];
  uint8_t raw;
  uint16_t cw, sw; /* control word; status word without TOP */
  uint16_t tag;    /* two bits per physical register, 3 = empty */
  uint8_t top;
  uint64_t last_ip, last_dp;
  uint16_t last_op;
} X87;

struct Insn;
struct Machine;

/* Why cpu_run returned (run.h). */
typedef enum StopReason {
  STOP_SYSCALL = 1, /* SYSCALL ran: rip is after it, rcx/r11 are set; the OS layer performs it */
  STOP_FAULT,       /* a synchronous fault or trap, in c->fault; rip is the faulting
                       instruction (the next one for a trap such as INT3) */
  STOP_ADDRESS,     /* rip reached the stop address; the instruction there has not run */
  STOP_BREAKPOINT,  /* rip reached a breakpoint (not the run's first instruction) */
  STOP_BUDGET,      /* icount reached icount_limit: one step, or N instructions, done */
  STOP_REQUESTED,   /* cpu_request_stop(c, STOP_REQUESTED): a hook or another thread */
  STOP_EVENT,       /* a bit of c->events is set: whoever set it handles and clears it */
  STOP_EXIT,        /* never from the core: an OS layer's loop says the guest exited */
  STOP_SIGNAL,      /* never from the core: an OS layer's loop stopped before it delivered
                       a signal, as a debugger asked */
} StopReason;

/* A synchronous fault as the guest's kernel would report it. */
typedef struct Fault {
  int sig, code;
  uint64_t addr;
  bool undefined; /* SIGILL for bytes x64emu does not implement (not UD2's own #UD) */
  int trapno;     /* the exception when sig and code do not tell it (ICEBP's #DB, INT n's
                     #GP with its error code), else -1 */
  uint64_t err;   /* its error code */
  bool rmw;       /* in an instruction that reads its memory operand to write it (Insn.rmw) */
} Fault;

/* Checked once per block: the core's own bit, and the bits of the OS layer (or of another
 * thread, or a host signal handler) that want cpu_run to return at the next block. */
enum {
  EV_STOP = 1u << 31, /* cpu_run returns c->stop (set with it, by a handler) */
  EV_FP_UNMASKED = 1u << 30, /* the core's own: cpu_fp_controls_loaded */
};

typedef struct Cpu {
  uint64_t r[17]; /* RAX..R15, then r[REG_NONE], a zero that addressing reads */
  uint64_t rip;
  uint64_t rflags; /* DF, ID, ... and, when lf.op == LF_NONE, the arithmetic flags */
  LazyFlags lf;
  uint64_t fs_base, gs_base;
  uint16_t sreg[6];  /* segment selectors ES CS SS DS FS GS: only what MOV Sreg shows */
  Xmm xmm[16];
  Xmm ymmh[16];      /* bits 255:128 of YMM0-15: VEX.128 writes zero them, legacy SSE
                        writes keep them */
  uint32_t mxcsr;
  uint8_t xstate_in_use; /* XSAVE components (cpuid.h's XSTATE_*) in use whatever their
                            values, as Intel's XINUSE keeps them (xsave.c) */
  bool fp_halves;    /* between vex256_begin and vex256_put: mxcsr.h's fp_unmasked */
  X87 fpu;
  bool tsc_denied;   /* CR4.TSD as the kernel sets it for this thread (PR_SET_TSC):
                        RDTSC and RDTSCP are #GP */

  /* Run state. */
  volatile uint32_t events;
  StopReason stop;              /* what EV_STOP makes cpu_run return */
  Fault fault;                  /* with STOP_FAULT */
  bool undefined;               /* the trap being raised is an unimplemented instruction's */
  bool trap_deferred;           /* the single-step trap waits for the next instruction: MOV
                                   SS's shadow, or the kernel's emulation of an instruction
                                   UMIP denies, which returns without one */
  int trapno;                   /* and its exception and error code, for Fault (or -1) */
  uint64_t trap_err;
  bool split_locked;            /* holds atomic.c's lock of misaligned atomics: a fault
                                   while it does (another thread unmapped the operand)
                                   must give it back */
  int exit_status;              /* the OS layer's: valid once the guest exited */
  int term_signal;              /* the OS layer's: non-zero when the guest dies of it */
  const struct Insn *cur;       /* the record running, or one before it with only lean
                                   records between (insn.h: cpu_insn): for faults */
  /* The block running (run.c's run_block), which the branch ending it may leave for the
   * next one at once (chain.h); the side exit that left it, when that went back to
   * run_blocks (its record counts the instructions run and keeps the link to where it
   * went); the code cache's generation when run_blocks entered the block, whose return
   * sites a RET may follow (UINT64_MAX: none); and the host stack pointer below which
   * chaining stops (UINTPTR_MAX: no chaining, as in a precise run or outside a run). */
  struct Block *block;
  const struct Insn *exit_jump;
  uint64_t chain_generation;
  uintptr_t chain_stack_floor;
  /* The return sites of the CALLs chained runs made, a ring whose newest is at
   * returns_top - 1: a RET to the newest goes on into the block after its CALL (chain.h);
   * pending_return, a RET that went back to run_blocks, which links that block. */
  struct ReturnSite {
    uint64_t rip;         /* the return address */
    uint64_t generation;  /* chain_generation at the CALL: caller stays live while it holds */
    struct Block *caller; /* the block the CALL ended */
  } returns[16], pending_return;
  unsigned returns_top;
  volatile uint32_t running;    /* atomic: runs guest code without the machine's lock
                                   (Machine.parallel), so blocks may not be freed */
  uint64_t ac_checked;          /* F_AC when this CPU's AC made the machine check alignment */
  struct {                      /* what an instruction hook's record keeps across the hook */
    uint64_t rip, generation;
    unsigned nth;
  } hooked;
  uint64_t icount;              /* instructions retired; each iteration of a REP string
                                   instruction is one, as the trap flag steps them */
  uint64_t icount_limit;        /* cpu_run returns STOP_BUDGET once icount reaches it */
  sigjmp_buf fault_jmp;         /* where a host fault in guest code lands */
  struct Machine *m;            /* the machine it runs on: model, decoder, code cache */
  void *owner;                  /* the OS layer's object for this CPU (its thread), or NULL */
} Cpu;

/* c->events as it is now: other threads and signal handlers set bits of it. */
static inline uint32_t cpu_events(const Cpu *c) {
  return __atomic_load_n((const uint32_t *)&c->events, __ATOMIC_RELAXED);
}

/* Sets the bits ev of c->events, from any thread or signal handler. */
static inline void cpu_raise_events(Cpu *c, uint32_t ev) {
  __atomic_fetch_or((uint32_t *)&c->events, ev, __ATOMIC_RELAXED);
}

/* Clears the bits ev of c->events (those taken), leaving the others as raised. */
static inline void cpu_clear_events(Cpu *c, uint32_t ev) {
  __atomic_fetch_and((uint32_t *)&c->events, ~ev, __ATOMIC_RELAXED);
}

#endif
