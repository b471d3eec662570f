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

/* An unmasked exception in a dot product: the CPU stops after the step that raised it,
 * with the flags of the steps before and those of that step (only its invalid,
 * denormal and divide-by-zero flags when one of those is the unmasked one). Whichever
 * tier computed the result, the steps' flags come from the portable kernel (held to the
 * CPU's flags by test_sse4_float.c). */
static _Noreturn void dp_fault(Cpu *c, bool f64, unsigned imm, const Xmm *d, const Xmm *s) {
  uint32_t steps[DP_STEPS], unmasked = ~(c->mxcsr >> 7) & MXCSR_FLAGS;
  Xmm r = *d;
  soft_dp(f64, imm, &r, s, c->mxcsr, steps);
  uint32_t before = 0;
  unsigned i = 0;
  while (i + 1 < DP_STEPS && !(steps[i] & unmasked)) before |= steps[i++];
  c->mxcsr |= before;
  fp_fault(c, steps[i]);
}

/* Whether any lane of x is a NaN. */
static bool any_nan(bool f64, const Xmm *x) {
  if (f64) return (x->q[0] << 1) > 0xFFE0000000000000ull || (x->q[1] << 1) > 0xFFE0000000000000ull;
  for (unsigned i = 0; i < 4; i++)
    if ((x->d[i] << 1) > 0xFF000000u) return true;
  return false;
}

/* With a NaN operand, the NaN that comes out depends on the order of the additions,
 * which is the CPU model's (docs/cpu-model.md) only in the portable kernel: the host's
 * own DPPS follows its vendor. */
#define FP_DOT(name, f64)                                                             \
  SSE_RM(name, load_m128a) {                                                          \
    Xmm r = *d;                                                                       \
    unsigned imm = (unsigned)in->imm;                                                 \
    uint32_t steps[DP_STEPS];                                                         \
    bool nan = any_nan(f64, d) || any_nan(f64, s);                                    \
    uint32_t raised = nan ? soft_dp(f64, imm, &r, s, c->mxcsr, steps)                 \
                          : HOST_OR_SOFT(c, host_##name(&r, s, c->mxcsr, imm),           \
                                         soft_dp(f64, imm, &r, s, c->mxcsr, steps));  \
    if (__builtin_expect((raised & ~(c->mxcsr >> 7) & MXCSR_FLAGS) != 0, 0))          \
      dp_fault(c, f64, imm, d, s);                                                    \
    c->mxcsr |= raised;                                                               \
    *d = r;                                                                           \
  }

/* 66 0F 3A 40, 66 0F 3A 41 */
FP_DOT(dpps, false)
FP_DOT(dppd, true)

/* ---- AVX forms: rounding in both lengths (scalar ones merge into vvvv); the dot
 * products VEX.128 only ---- */

AVX_RM(roundps, load_m128u) AVX_RM(roundpd, load_m128u)
AVX_128(roundss, load_m32) AVX_128(roundsd, load_m64)
AVX_128(dpps, load_m128u) AVX_128(dppd, load_m128u)
