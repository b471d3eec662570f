/* sse4_fp.h: the portable tier of the SSE3 and SSE4.1 float kernels (sse4_fp_soft.c).
 *
 * Like sse_fp.h's kernels, each takes the guest's MXCSR and returns the exception flags
 * it raised; the handler commits them with fp_commit() before writing the destination.
 * The horizontal, alternating and dot-product operations are built from sse_fp.h's
 * one-lane arithmetic in the order the CPU performs them (which decides the NaN that
 * propagates); rounding to an integer is done on the bits. */
#ifndef X64EMU_SSE4_FP_H
#define X64EMU_SSE4_FP_H

#include <stdbool.h>
#include <stdint.h>

#include "sse_fp.h"

/* HADDPS/HADDPD (op FP_ADD) and HSUBPS/HSUBPD (FP_SUB): pairs of d, then pairs of s. */
uint32_t soft_horizontal(enum FpOp op, bool f64, Xmm *d, const Xmm *s, uint32_t mxcsr);
/* ADDSUBPS/ADDSUBPD: even lanes subtract, odd lanes add. */
uint32_t soft_addsub(bool f64, Xmm *d, const Xmm *s, uint32_t mxcsr);
/* ROUNDPS/PD/SS/SD with imm8: bits 1:0 the rounding, bit 2 MXCSR.RC instead, bit 3 no
 * precision exception. The scalar shapes keep d's other lanes. */
uint32_t soft_round(enum FpShape sh, unsigned imm, Xmm *d, const Xmm *s, uint32_t mxcsr);
/* DPPS/DPPD: imm8 bits 7:4 pick the products, bits 3:0 the lanes that get the sum.
 * The CPU works in steps (products, then one or two rounds of sums) and an unmasked
 * exception stops it after the step that raised it, so the flags of each step are also
 * stored in steps[] (three for DPPS, two for DPPD). */
enum { DP_STEPS = 3 };
uint32_t soft_dp(bool f64, unsigned imm, Xmm *d, const Xmm *s, uint32_t mxcsr,
                 uint32_t steps[DP_STEPS]);

#endif
