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
    uint32_t raised = HOST_OR_SOFT(host_##name(&r, s, c->mxcsr, imm),                 \
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

#define FP_DOT(name, f64)                                                             \
  SSE_RM(name, load_m128a) {                                                          \
    Xmm r = *d;                                                                       \
    unsigned imm = (unsigned)in->imm;                                                 \
    uint32_t steps[DP_STEPS];                                                         \
    uint32_t raised = HOST_OR_SOFT(host_##name(&r, s, c->mxcsr, imm),                 \
                                   soft_dp(f64, imm, &r, s, c->mxcsr, steps));        \
    if (__builtin_expect((raised & ~(c->mxcsr >> 7) & MXCSR_FLAGS) != 0, 0))          \
      dp_fault(c, f64, imm, d, s);                                                    \
    c->mxcsr |= raised;                                                               \
    *d = r;                                                                           \
  }

/* 66 0F 3A 40, 66 0F 3A 41 */
FP_DOT(dpps, false)
FP_DOT(dppd, true)
