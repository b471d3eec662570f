/* sse_shuffle.c: SSE/SSE2 lane rearrangement: unpacks, packs with saturation, shuffles
 * (PSHUFD: byte_shuffles.c). */
#include "ops_sse.h"
#include "mmx.h"
#include "ops_mmx.h"
#include "sse_operand.h"

/* ---- interleaving (UNPCKLPS/HPS/LPD/HPD are the dword and qword forms) ---- */

/* 66 0F 60 */
SSE_RM_LEAN(punpcklbw, load_m128a) {
  Xmm r;
  for (int i = 0; i < 8; i++) { r.b[2 * i] = d->b[i]; r.b[2 * i + 1] = s->b[i]; }
  *d = r;
}
/* 66 0F 68 */
SSE_RM_LEAN(punpckhbw, load_m128a) {
  Xmm r;
  for (int i = 0; i < 8; i++) { r.b[2 * i] = d->b[8 + i]; r.b[2 * i + 1] = s->b[8 + i]; }
  *d = r;
}
/* 66 0F 61 */
SSE_RM_LEAN(punpcklwd, load_m128a) {
  Xmm r;
  for (int i = 0; i < 4; i++) { r.w[2 * i] = d->w[i]; r.w[2 * i + 1] = s->w[i]; }
  *d = r;
}
/* 66 0F 69 */
SSE_RM_LEAN(punpckhwd, load_m128a) {
  Xmm r;
  for (int i = 0; i < 4; i++) { r.w[2 * i] = d->w[4 + i]; r.w[2 * i + 1] = s->w[4 + i]; }
  *d = r;
}
/* 66 0F 62, 0F 14 (UNPCKLPS) */
SSE_RM_LEAN(punpckldq, load_m128a) {
  Xmm r = {.d = {d->d[0], s->d[0], d->d[1], s->d[1]}};
  *d = r;
}
/* 66 0F 6A, 0F 15 (UNPCKHPS) */
SSE_RM_LEAN(punpckhdq, load_m128a) {
  Xmm r = {.d = {d->d[2], s->d[2], d->d[3], s->d[3]}};
  *d = r;
}
/* 66 0F 6C, 66 0F 14 (UNPCKLPD) */
SSE_RM_LEAN(punpcklqdq, load_m128a) { xmm_put_pair(d, d->q[0], s->q[0]); }
/* 66 0F 6D, 66 0F 15 (UNPCKHPD) */
SSE_RM_LEAN(punpckhqdq, load_m128a) { xmm_put_pair(d, d->q[1], s->q[1]); }

/* ---- narrowing with saturation: destination lanes first, then source lanes ---- */

static inline int8_t sat_s8(int v) { return v < -128 ? -128 : v > 127 ? 127 : (int8_t)v; }
static inline uint8_t sat_u8(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }
static inline int16_t sat_s16(int32_t v) {
  return v < -32768 ? -32768 : v > 32767 ? 32767 : (int16_t)v;
}

/* 66 0F 63 */
SSE_RM_LEAN(packsswb, load_m128a) {
  Xmm r;
  for (int i = 0; i < 8; i++) { r.sb[i] = sat_s8(d->sw[i]); r.sb[8 + i] = sat_s8(s->sw[i]); }
  *d = r;
}
/* 66 0F 67 */
SSE_RM_LEAN(packuswb, load_m128a) {
  Xmm r;
  for (int i = 0; i < 8; i++) { r.b[i] = sat_u8(d->sw[i]); r.b[8 + i] = sat_u8(s->sw[i]); }
  *d = r;
}
/* 66 0F 6B */
SSE_RM_LEAN(packssdw, load_m128a) {
  Xmm r;
  for (int i = 0; i < 4; i++) { r.sw[i] = sat_s16(d->sd[i]); r.sw[4 + i] = sat_s16(s->sd[i]); }
  *d = r;
}

/* ---- shuffles by immediate: two selector bits per destination lane ---- */

/* F2 0F 70: low four words shuffled, high quadword copied */
SSE_RM_LEAN(pshuflw, load_m128a) {
  unsigned imm = (unsigned)in->imm;
  Xmm r;
  for (int i = 0; i < 4; i++) r.w[i] = s->w[(imm >> (2 * i)) & 3];
  r.q[1] = s->q[1];
  *d = r;
}
/* F3 0F 70: high four words shuffled, low quadword copied */
SSE_RM_LEAN(pshufhw, load_m128a) {
  unsigned imm = (unsigned)in->imm;
  Xmm r;
  r.q[0] = s->q[0];
  for (int i = 0; i < 4; i++) r.w[4 + i] = s->w[4 + ((imm >> (2 * i)) & 3)];
  *d = r;
}
/* 0F C6: two lanes from the destination, two from the source */
SSE_RM_LEAN(shufps, load_m128a) {
  unsigned imm = (unsigned)in->imm;
  Xmm r = {.d = {d->d[imm & 3], d->d[(imm >> 2) & 3], s->d[(imm >> 4) & 3], s->d[(imm >> 6) & 3]}};
  *d = r;
}
/* 66 0F C6 */
SSE_RM_LEAN(shufpd, load_m128a) {
  unsigned imm = (unsigned)in->imm;
  Xmm r = {.q = {d->q[imm & 1], s->q[(imm >> 1) & 1]}};
  *d = r;
}

/* ---- the MMX forms (0F without a prefix) ---- */

MMX_FROM_SSE_LOAD(punpcklbw, punpcklbw, mmx_lanes, ld32)
MMX_FROM_SSE_LOAD(punpcklwd, punpcklwd, mmx_lanes, ld32)
MMX_FROM_SSE_LOAD(punpckldq, punpckldq, mmx_lanes, ld32)
MMX_FROM_SSE(punpckhbw, punpcklbw, mmx_high)
MMX_FROM_SSE(punpckhwd, punpcklwd, mmx_high)
MMX_FROM_SSE(punpckhdq, punpckldq, mmx_high)
MMX_FROM_SSE(packsswb, packsswb, mmx_paired)
MMX_FROM_SSE(packuswb, packuswb, mmx_paired)
MMX_FROM_SSE(packssdw, packssdw, mmx_paired)
/* 0F 70 ib: PSHUFW is PSHUFLW's low half. */
MMX_FROM_SSE(pshufw, pshuflw, mmx_lanes)

/* ---- AVX forms (VEX.128: AVX; VEX.256: AVX2), lane by lane ---- */

AVX_RM_LEAN(punpcklbw, load_m128u) AVX_RM_LEAN(punpckhbw, load_m128u) AVX_RM_LEAN(punpcklwd, load_m128u)
AVX_RM_LEAN(punpckhwd, load_m128u) AVX_RM_LEAN(punpckldq, load_m128u) AVX_RM_LEAN(punpckhdq, load_m128u)
AVX_RM_LEAN(punpcklqdq, load_m128u) AVX_RM_LEAN(punpckhqdq, load_m128u)
AVX_RM_LEAN(packsswb, load_m128u) AVX_RM_LEAN(packuswb, load_m128u) AVX_RM_LEAN(packssdw, load_m128u)
AVX_RM_LEAN(pshuflw, load_m128u) AVX_RM_LEAN(pshufhw, load_m128u)
AVX_RM_LEAN(shufps, load_m128u)
