/* mxcsr.h: the guest's MXCSR: bits, validated writes, and raising SIMD float exceptions. */
#ifndef X64EMU_MXCSR_H
#define X64EMU_MXCSR_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"

enum {
  MXCSR_IE = 1u << 0, /* invalid operation */
  MXCSR_DE = 1u << 1, /* denormal operand */
  MXCSR_ZE = 1u << 2, /* divide by zero */
  MXCSR_OE = 1u << 3, /* overflow */
  MXCSR_UE = 1u << 4, /* underflow */
  MXCSR_PE = 1u << 5, /* precision (inexact) */
  MXCSR_FLAGS = 0x3Fu,
  MXCSR_DAZ = 1u << 6,       /* denormal source operands read as zero */
  MXCSR_MASKS = 0x3Fu << 7,  /* exception masks, same order as the flags */
  MXCSR_RC_SHIFT = 13,       /* rounding: 0 nearest, 1 down, 2 up, 3 toward zero */
  MXCSR_RC = 3u << 13,
  MXCSR_FTZ = 1u << 15,      /* tiny results flush to zero */
  MXCSR_DEFAULT = 0x1F80u,
  /* The bits a write may set (FXSAVE's MXCSR_MASK); others raise #GP. */
  MXCSR_WRITABLE = 0xFFFFu,
};

/* Which implementation runs the floating-point instructions. The host tier executes
 * the same instruction on an x86-64 host (exact by construction); the portable tier is
 * C with <fenv.h> and explicit x86 NaN rules, for other hosts. */
enum FpTier { FP_TIER_HOST, FP_TIER_PORTABLE };
/* Whether this build has a host tier at all. */
bool fp_tier_host_available(void);
/* The host tier where there is one, else the portable one. */
enum FpTier fp_tier_best(void);
/* The tier a name ("host", "native", "portable" or "auto") asks for; false if unknown
 * or unavailable here. */
bool fp_tier_parse(const char *name, enum FpTier *tier);

/* The MXCSR value the host runs one guest operation with: the guest's rounding, DAZ and
 * FTZ, every exception masked (an unmasked one is raised by fp_commit, not the host),
 * and the flags clear so that what the operation raised can be read back. */
static inline uint32_t mxcsr_for_host(uint32_t guest) {
  return (guest & ~MXCSR_FLAGS) | MXCSR_MASKS;
}

/* Whether overflow or underflow is unmasked: then a lane that overflows or is tiny has
 * no result, and the CPU reports what it would be rounded with an unbounded exponent
 * (sse_fp_soft.c, "the trapping response"). */
static inline bool mxcsr_traps_range(uint32_t mxcsr) {
  return (~mxcsr & (MXCSR_OE | MXCSR_UE) << 7) != 0;
}

/* The si_code the kernel gives a SIMD floating-point exception (#XM) with this MXCSR. */
int mxcsr_fpe_code(uint32_t mxcsr);

/* Records the exception flags an operation raised. If one of them is unmasked the
 * instruction faults like #XM (guest SIGFPE) before its destination is written, so
 * handlers call this between computing a result and storing it. */
_Noreturn void fp_fault(Cpu *c, uint32_t raised);
/* The same, except between vex256_begin and vex256_put (c->fp_halves), where the flags
 * are only recorded: the two halves of a VEX.256 instruction fault once, with the flags
 * of both, when vex256_put commits them. */
void fp_unmasked(Cpu *c, uint32_t raised);
static inline void fp_check(Cpu *c, uint32_t raised) {
  if (__builtin_expect((raised & ~(c->mxcsr >> 7) & MXCSR_FLAGS) != 0, 0)) fp_unmasked(c, raised);
}
static inline void fp_commit(Cpu *c, uint32_t raised) {
  fp_check(c, raised);
  c->mxcsr |= raised;
}
/* An instruction with a memory destination records its flags only once the store is
 * done (a page fault leaves MXCSR as it was): fp_check, the store, then this. */
static inline void fp_record(Cpu *c, uint32_t raised) { c->mxcsr |= raised; }

#endif
