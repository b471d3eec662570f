/* ssse3.c: SSSE3 on XMM registers: horizontal add and subtract, multiply-add and
 * rounding multiply, sign and absolute value (PSHUFB and PALIGNR: byte_shuffles.c). (The MMX forms
 * without the 66 prefix are not implemented.) */
#include "ops_sse4.h"
#include "mmx.h"
#include "ops_mmx.h"
#include "sse_operand.h"

static inline int16_t sat_s16(int32_t v) {
  return v < -32768 ? -32768 : v > 32767 ? 32767 : (int16_t)v;
}

/* ---- horizontal add and subtract: pairs of the destination, then of the source ---- */

#define HORIZONTAL(name, lane, n, expr)                                               \
  SSE_RM_LEAN(name, load_m128a) {                                                     \
    Xmm r;                                                                            \
    for (int i = 0; i < (n) / 2; i++) {                                               \
      int64_t a = d->lane[2 * i], b = d->lane[2 * i + 1];                             \
      r.lane[i] = (expr);                                                             \
      a = s->lane[2 * i], b = s->lane[2 * i + 1];                                     \
      r.lane[(n) / 2 + i] = (expr);                                                   \
    }                                                                                 \
    *d = r;                                                                           \
  }

/* 66 0F 38 01, 02, 03 */
HORIZONTAL(phaddw, sw, 8, (int16_t)(a + b))
HORIZONTAL(phaddd, sd, 4, (int32_t)(a + b))
HORIZONTAL(phaddsw, sw, 8, sat_s16((int32_t)(a + b)))
/* 66 0F 38 05, 06, 07 */
HORIZONTAL(phsubw, sw, 8, (int16_t)(a - b))
HORIZONTAL(phsubd, sd, 4, (int32_t)(a - b))
HORIZONTAL(phsubsw, sw, 8, sat_s16((int32_t)(a - b)))

/* ---- multiplies ---- */

/* 66 0F 38 04: unsigned destination bytes times signed source bytes, adjacent products
 * summed with signed saturation */
SSE_RM_LEAN(pmaddubsw, load_m128a) {
  Xmm r;
  for (int i = 0; i < 8; i++)
    r.sw[i] = sat_s16(d->b[2 * i] * s->sb[2 * i] + d->b[2 * i + 1] * s->sb[2 * i + 1]);
  *d = r;
}
/* 66 0F 38 0B: the high half of the product scaled by 2, rounded */
SSE_RM_LEAN(pmulhrsw, load_m128a) {
  for (int i = 0; i < 8; i++)
    d->sw[i] = (int16_t)((((int32_t)d->sw[i] * s->sw[i] >> 14) + 1) >> 1);
}

/* ---- sign and absolute value ---- */

#define PSIGN(name, lane, slane, n)                                                   \
  SSE_RM_LEAN(name, load_m128a) {                                                     \
    for (int i = 0; i < (n); i++)                                                     \
      d->lane[i] = s->slane[i] < 0 ? 0u - d->lane[i] : s->slane[i] == 0 ? 0 : d->lane[i]; \
  }

/* 66 0F 38 08, 09, 0A: negate, zero or keep each lane by the source's sign */
PSIGN(psignb, b, sb, 16)
PSIGN(psignw, w, sw, 8)
PSIGN(psignd, d, sd, 4)

/* 66 0F 38 1C, 1D, 1E: the magnitude as an unsigned value (so -128 gives 0x80) */
SSE_RM_LEAN(pabsb, load_m128a) {
  for (int i = 0; i < 16; i++) d->b[i] = (uint8_t)(s->sb[i] < 0 ? -s->sb[i] : s->sb[i]);
}
SSE_RM_LEAN(pabsw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = (uint16_t)(s->sw[i] < 0 ? -s->sw[i] : s->sw[i]);
}
SSE_RM_LEAN(pabsd, load_m128a) {
  for (int i = 0; i < 4; i++) d->d[i] = s->sd[i] < 0 ? 0u - s->d[i] : s->d[i];
}

/* ---- the MMX forms (0F 38 and 0F 3A without a prefix) ---- */

MMX_FROM_SSE(phaddw, phaddw, mmx_paired)
MMX_FROM_SSE(phaddd, phaddd, mmx_paired)
MMX_FROM_SSE(phaddsw, phaddsw, mmx_paired)
MMX_FROM_SSE(phsubw, phsubw, mmx_paired)
MMX_FROM_SSE(phsubd, phsubd, mmx_paired)
MMX_FROM_SSE(phsubsw, phsubsw, mmx_paired)
MMX_FROM_SSE(pmaddubsw, pmaddubsw, mmx_lanes)
MMX_FROM_SSE(pmulhrsw, pmulhrsw, mmx_lanes)
MMX_FROM_SSE(psignb, psignb, mmx_lanes)
MMX_FROM_SSE(psignw, psignw, mmx_lanes)
MMX_FROM_SSE(psignd, psignd, mmx_lanes)
MMX_FROM_SSE(pabsb, pabsb, mmx_lanes)
MMX_FROM_SSE(pabsw, pabsw, mmx_lanes)
MMX_FROM_SSE(pabsd, pabsd, mmx_lanes)

/* ---- AVX forms (VEX.128: AVX; VEX.256: AVX2), lane by lane; PABS* have no vvvv ---- */

AVX_RM_LEAN(phaddw, load_m128u) AVX_RM_LEAN(phaddd, load_m128u) AVX_RM_LEAN(phaddsw, load_m128u)
AVX_RM_LEAN(phsubw, load_m128u) AVX_RM_LEAN(phsubd, load_m128u) AVX_RM_LEAN(phsubsw, load_m128u)
AVX_RM_LEAN(pmaddubsw, load_m128u) AVX_RM_LEAN(pmulhrsw, load_m128u)
AVX_RM_LEAN(psignb, load_m128u) AVX_RM_LEAN(psignw, load_m128u) AVX_RM_LEAN(psignd, load_m128u)
AVX_RM_LEAN(pabsb, load_m128u) AVX_RM_LEAN(pabsw, load_m128u) AVX_RM_LEAN(pabsd, load_m128u)
