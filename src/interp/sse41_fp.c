/* sse41_fp.c: SSE4.1 rounding to integral values and dot products, through the
 * floating-point tiers (sse4_fp.h) and committed through MXCSR. */
#include "ops_sse4.h"
#include "sse4_fp.h"
#include "sse4_fp_host.h"
#include "sse_operand.h"

#define FP_ROUND(name, shape, load)                                                   \
  SSE_RM(name, load) {                                                                \
    Xmm r = *d;                                                                       \
    unsigned imm = (unsigned)in->imm;                                                 \
    uint32_t raised = HOST_OR_SOFT(c, host_##name(&r, s, c->mxcsr, imm),                 \
                                   soft_round(shape, imm, &r, s, c->mxcsr));          \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }

/* 66 0F 3A 08, 66 0F 3A 09 */
FP_ROUND(roundps, FP_PS, load_m128a)
FP_ROUND(roundpd, FP_PD, load_m128a)
/* 66 0F 3A 0A, 66 0F 3A 0B: the other lanes of the destination are kept */
FP_ROUND(roundss, FP_SS, load_m32)
FP_ROUND(roundsd, FP_SD, load_m64)

/* Whether any lane of x is a NaN. */
static bool any_nan(bool f64, const Xmm *x) {
  if (f64) return (x->q[0] << 1) > 0xFFE0000000000000ull || (x->q[1] << 1) > 0xFFE0000000000000ull;
  for (unsigned i = 0; i < 4; i++)
    if ((x->d[i] << 1) > 0xFF000000u) return true;
  return false;
}

/* One 128-bit lane's dot product; returns the flags it raised. With a NaN operand, the
 * NaN that comes out depends on the order of the additions, which is the CPU model's
 * (docs/cpu-model.md) only in the portable kernel: the host's own DPPS follows its
 * vendor. */
static uint32_t dot_lane(Cpu *c, bool f64, unsigned imm, Xmm *r, const Xmm *s) {
  uint32_t steps[DP_STEPS];
  if (any_nan(f64, r) || any_nan(f64, s)) return soft_dp(f64, imm, r, s, c->mxcsr, steps);
  return HOST_OR_SOFT_RANGE(c,
                            f64 ? host_dppd(r, s, c->mxcsr, imm) : host_dpps(r, s, c->mxcsr, imm),
                            soft_dp(f64, imm, r, s, c->mxcsr, steps));
}

/* An unmasked exception in a dot product: the CPU stops after the step that raised it,
 * with the flags of the steps before and those of that step (only its invalid,
 * denormal and divide-by-zero flags when one of those is the unmasked one). The lanes
 * of VDPPS on YMM go through the steps together: a step's flags are those of both.
 * Whichever tier computed the result, the steps' flags come from the portable kernel
 * (held to the CPU's flags by test_sse4_float.c and test_avx.c). */
static _Noreturn void dp_fault(Cpu *c, bool f64, unsigned imm, const Xmm *d, const Xmm *s,
                               unsigned lanes) {
  uint32_t steps[DP_STEPS] = {0}, unmasked = ~(c->mxcsr >> 7) & MXCSR_FLAGS;
  for (unsigned l = 0; l < lanes; l++) {
    uint32_t lane_steps[DP_STEPS];
    Xmm r = d[l];
    soft_dp(f64, imm, &r, &s[l], c->mxcsr, lane_steps);
    for (unsigned i = 0; i < DP_STEPS; i++) steps[i] |= lane_steps[i];
  }
  uint32_t before = 0;
  unsigned i = 0;
  while (i + 1 < DP_STEPS && !(steps[i] & unmasked)) before |= steps[i++];
  c->mxcsr |= before;
  fp_fault(c, steps[i]);
}

/* The dot products of `lanes` 128-bit lanes, d[l] = d[l] . s[l]; d is unchanged when an
 * unmasked exception faults. */
static void dot(Cpu *c, bool f64, unsigned imm, Xmm *d, const Xmm *s, unsigned lanes) {
  Xmm r[2];
  uint32_t raised = 0;
  for (unsigned l = 0; l < lanes; l++) {
    r[l] = d[l];
    raised |= dot_lane(c, f64, imm, &r[l], &s[l]);
  }
  if (__builtin_expect((raised & ~(c->mxcsr >> 7) & MXCSR_FLAGS) != 0, 0))
    dp_fault(c, f64, imm, d, s, lanes);
  c->mxcsr |= raised;
  for (unsigned l = 0; l < lanes; l++) d[l] = r[l];
}

/* 66 0F 3A 40, 66 0F 3A 41 */
SSE_RM(dpps, load_m128a) { dot(c, false, (unsigned)in->imm, d, s, 1); }
SSE_RM(dppd, load_m128a) { dot(c, true, (unsigned)in->imm, d, s, 1); }

/* ---- AVX forms: rounding in both lengths (scalar ones merge into vvvv); VDPPD is
 * VEX.128 only ---- */

AVX_RM(roundps, load_m128u) AVX_RM(roundpd, load_m128u)
AVX_128(roundss, load_m32) AVX_128(roundsd, load_m64)
AVX_128(dpps, load_m128u) AVX_128(dppd, load_m128u)

/* VEX.256 VDPPS: a dot product in each 128-bit lane, one imm8 for both. */
static void vdpps_256(Cpu *c, const Insn *in, const Xmm s[2]) {
  Xmm d[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]};
  dot(c, false, (unsigned)in->imm, d, s, 2);
  c->xmm[in->reg] = d[0];
  c->ymmh[in->reg] = d[1];
}
YMM_SOURCE_PAIR(vdpps_256, vdpps_256)
