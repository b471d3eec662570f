/* sse3.c: SSE3: duplicating moves and the horizontal and alternating float arithmetic
 * (through the floating-point tiers, committed through MXCSR). LDDQU is MOVDQU's load
 * (table_0f.def maps it to op_movu_load_m). */
#include "ops_sse4.h"
#include "sse4_fp.h"
#include "sse4_fp_host.h"
#include "sse_operand.h"

/* ---- moves ---- */

/* F2 0F 12: MOVDDUP xmm, xmm/m64 */
SSE_RM(movddup, load_m64) { d->q[0] = d->q[1] = s->q[0]; }
/* F3 0F 12: MOVSLDUP */
SSE_RM(movsldup, load_m128a) {
  Xmm r = {.d = {s->d[0], s->d[0], s->d[2], s->d[2]}};
  *d = r;
}
/* F3 0F 16: MOVSHDUP */
SSE_RM(movshdup, load_m128a) {
  Xmm r = {.d = {s->d[1], s->d[1], s->d[3], s->d[3]}};
  *d = r;
}

/* ---- float arithmetic ---- */

#define FP_HORIZONTAL(name, op, f64)                                                  \
  SSE_RM(name, load_m128a) {                                                          \
    Xmm r;                                                                            \
    uint32_t raised;                                                                  \
    HOST_OR_SOFT_RANGED(c, raised, r, *d, f64 ? FP_PD : FP_PS,                        \
                        host_##name(&r, s, c->mxcsr),                                 \
                        soft_horizontal(op, f64, &r, s, c->mxcsr));                   \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }

/* F2 0F 7C, 66 0F 7C */
FP_HORIZONTAL(haddps, FP_ADD, false)
FP_HORIZONTAL(haddpd, FP_ADD, true)
/* F2 0F 7D, 66 0F 7D */
FP_HORIZONTAL(hsubps, FP_SUB, false)
FP_HORIZONTAL(hsubpd, FP_SUB, true)

#define FP_ADDSUB(name, f64)                                                          \
  SSE_RM(name, load_m128a) {                                                          \
    Xmm r;                                                                            \
    uint32_t raised;                                                                  \
    HOST_OR_SOFT_RANGED(c, raised, r, *d, f64 ? FP_PD : FP_PS,                        \
                        host_##name(&r, s, c->mxcsr),                                 \
                        soft_addsub(f64, &r, s, c->mxcsr));                           \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }

/* F2 0F D0, 66 0F D0 */
FP_ADDSUB(addsubps, false)
FP_ADDSUB(addsubpd, true)

/* ---- AVX forms, lane by lane (VMOVDDUP's VEX.128 memory operand is m64, its VEX.256
 * one m256) ---- */

AVX_128(movddup, load_m64) AVX_256(movddup)
AVX_RM(movsldup, load_m128u) AVX_RM(movshdup, load_m128u)
AVX_RM(haddps, load_m128u) AVX_RM(haddpd, load_m128u) AVX_RM(hsubps, load_m128u)
AVX_RM(hsubpd, load_m128u) AVX_RM(addsubps, load_m128u) AVX_RM(addsubpd, load_m128u)
