/* sse_fp.h: the floating-point kernels behind the SSE float handlers, in two tiers.
 *
 * Every kernel takes the guest's MXCSR (rounding, DAZ, FTZ) and returns the exception
 * flags the operation raised; the handler passes them to fp_commit() before it writes
 * the destination. The host tier (x86-64) runs the very instruction (sse_fp_host.h); the
 * portable tier (sse_fp_soft.c) is C with <fenv.h> and spells out the x86 rules that
 * other hosts do differently: which NaN propagates, the negative default NaN, DAZ/FTZ,
 * the denormal-operand flag, tininess after rounding, and the "integer indefinite" of
 * conversions. Both tiers are compared with the host CPU in tests/unit/test_sse_float.c.
 * The portable RCPPS/RSQRTPS estimates are the one place where results may differ from
 * an Intel CPU (as AMD's do), within the architectural error bound. */
#ifndef X64EMU_SSE_FP_H
#define X64EMU_SSE_FP_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"
#include "machine.h"
#include "mxcsr.h"

enum FpOp { FP_ADD, FP_SUB, FP_MUL, FP_DIV, FP_MIN, FP_MAX, FP_SQRT };
/* Lanes: 4 x f32, 2 x f64, or the low f32 / f64 lane alone (the rest kept). */
enum FpShape { FP_PS, FP_PD, FP_SS, FP_SD };
enum FpCvt {
  CVT_SS2SD, CVT_SD2SS, CVT_PS2PD, CVT_PD2PS, CVT_DQ2PS, CVT_DQ2PD,
  CVT_PS2DQ, CVT_TPS2DQ, CVT_PD2DQ, CVT_TPD2DQ,
};

/* d = d op s (SQRT: d = sqrt(s)). */
uint32_t soft_arith(enum FpOp op, enum FpShape sh, Xmm *d, const Xmm *s, uint32_t mxcsr);
/* CMPccPS/PD/SS/SD with predicate 0..7: lanes become all ones or zero. */
uint32_t soft_cmp(enum FpShape sh, unsigned pred, Xmm *d, const Xmm *s, uint32_t mxcsr);
/* (U)COMISS/SD: *zpc gets ZF/PF/CF as RFLAGS bits. quiet: only SNaN is invalid. */
uint32_t soft_comi(bool f64, bool quiet, const Xmm *a, const Xmm *b, uint32_t mxcsr,
                   uint64_t *zpc);
/* RCPPS/RCPSS/RSQRTPS/RSQRTSS (sh FP_PS or FP_SS): an approximation within the
 * architectural 1.5 * 2^-12 relative error, not Intel's exact table; raises nothing. */
void soft_rcp(enum FpShape sh, bool rsqrt, Xmm *d, const Xmm *s);
/* Float/float and float/doubleword conversions: d is the whole destination (the scalar
 * ones keep its upper lanes, the narrowing packed ones zero its upper half). */
uint32_t soft_cvt(enum FpCvt op, Xmm *d, const Xmm *s, uint32_t mxcsr);
/* CVTSI2SS/SD: the low lane of d from a signed integer. */
uint32_t soft_cvt_from_int(bool f64, int64_t v, Xmm *d, uint32_t mxcsr);
/* CVT(T)SS2SI/SD2SI into a size-byte integer (4 or 8). */
uint32_t soft_cvt_to_int(bool f64, bool truncate, unsigned size, const Xmm *s, uint32_t mxcsr,
                         uint64_t *out);

/* FMA3 (VFMADD132PS...): kind, and which operands are multiplied (order). */
enum FmaKind { FMA_ADD, FMA_SUB, FMA_NADD, FMA_NSUB, FMA_ADDSUB, FMA_SUBADD };
enum FmaOrder { FMA_132, FMA_213, FMA_231 };
/* a = the instruction's first operand (destination), b its second (VEX.vvvv), c its third
 * (ModRM.rm): 132 computes a*c + b, 213 b*a + c, 231 b*c + a, with the product negated
 * (NADD, NSUB) and the addend (SUB, NSUB; the even lanes of ADDSUB, the odd ones of
 * SUBADD); one rounding. The result goes to a (scalar shapes: its low lane). */
uint32_t soft_fma(enum FpShape sh, enum FmaKind kind, enum FmaOrder order, Xmm *a, const Xmm *b,
                  const Xmm *c, uint32_t mxcsr);

/* F16C: VCVTPH2PS of the four halves in the low quadword of s into d's four floats;
 * VCVTPS2PH of s's four floats into d's low quadword (the rest zero), rounded as imm8
 * says (bit 2: MXCSR's rounding, else bits 1:0). */
uint32_t soft_cvtph2ps(Xmm *d, const Xmm *s, uint32_t mxcsr);
uint32_t soft_cvtps2ph(Xmm *d, const Xmm *s, unsigned imm, uint32_t mxcsr);

/* HOST_OR_SOFT(c, h, s): the host expression where a host tier exists and c's machine
 * chose it. The host expression is not even compiled on other hosts. */
#ifdef __x86_64__
#define HOST_OR_SOFT(c, h, s) ((c)->m->fp_tier == FP_TIER_HOST ? (h) : (s))
#else
#define HOST_OR_SOFT(c, h, s) (s)
#endif
/* HOST_OR_SOFT_RANGE(c, h, s): the same for an operation that can overflow or underflow
 * within its steps (DPPS's products, VCVTPS2PH's halves): with either exception unmasked
 * the portable tier runs, which alone works out the CPU's trapping response. */
#define HOST_OR_SOFT_RANGE(c, h, s) (mxcsr_traps_range((c)->mxcsr) ? (s) : HOST_OR_SOFT(c, h, s))

/* Whether the host tier's run of an operation that can overflow or underflow, which
 * raised these flags with every exception masked and left r (lanes of shape sh), is not
 * the CPU's answer: with overflow or underflow unmasked, a lane that overflowed or is
 * tiny traps, and only the portable kernel works out that response (sse_fp_soft.c), so
 * the handler runs it again from the operands. False at once while both are masked. */
bool soft_range_traps(uint32_t mxcsr, uint32_t raised, const Xmm *r, enum FpShape sh);
static inline bool fp_host_missed_trap(const Cpu *c, uint32_t raised, const Xmm *r,
                                       enum FpShape sh) {
#ifdef __x86_64__
  return __builtin_expect(mxcsr_traps_range(c->mxcsr), 0) && c->m->fp_tier == FP_TIER_HOST &&
         soft_range_traps(c->mxcsr, raised, r, sh);
#else
  (void)c, (void)raised, (void)r, (void)sh;
  return false;
#endif
}

/* HOST_OR_SOFT_RANGED(c, raised, r, init, sh, h, s): HOST_OR_SOFT for an operation that
 * can overflow or underflow into r's lanes of shape sh, r starting as init; where the host
 * tier's masked run missed a trap (fp_host_missed_trap), r starts again from init and the
 * portable s runs. The flags raised go to the lvalue raised. */
#define HOST_OR_SOFT_RANGED(c, raised, r, init, sh, h, s)                              \
  do {                                                                                \
    (r) = (init);                                                                     \
    (raised) = HOST_OR_SOFT(c, h, s);                                                 \
    if (fp_host_missed_trap(c, raised, &(r), sh)) (r) = (init), (raised) = (s);       \
  } while (0)

#endif
