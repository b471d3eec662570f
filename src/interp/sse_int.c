/* sse_int.c: SSE2 integer arithmetic, logic, compares and shifts on XMM registers. */
#include "ops_sse.h"
#include "mmx.h"
#include "ops_mmx.h"
#include "sse_operand.h"

/* ---- logic (the PS/PD forms 0F 54..57 are the same bit operations) ---- */

/* 66 0F DB, 0F 54, 66 0F 54 */
SSE_RM_LEAN(pand, load_m128a) { d->q[0] &= s->q[0]; d->q[1] &= s->q[1]; }
/* 66 0F DF, 0F 55, 66 0F 55 */
SSE_RM_LEAN(pandn, load_m128a) { d->q[0] = ~d->q[0] & s->q[0]; d->q[1] = ~d->q[1] & s->q[1]; }
/* 66 0F EB, 0F 56, 66 0F 56 */
SSE_RM_LEAN(por, load_m128a) { d->q[0] |= s->q[0]; d->q[1] |= s->q[1]; }
/* 66 0F EF, 0F 57, 66 0F 57 */
SSE_RM_LEAN(pxor, load_m128a) { d->q[0] ^= s->q[0]; d->q[1] ^= s->q[1]; }

/* ---- compares: all-ones lanes where true ---- */

/* 66 0F 74 */
SSE_RM_LEAN(pcmpeqb, load_m128a) {
  for (int i = 0; i < 16; i++) d->b[i] = d->b[i] == s->b[i] ? 0xff : 0;
}
/* 66 0F 75 */
SSE_RM_LEAN(pcmpeqw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = d->w[i] == s->w[i] ? 0xffff : 0;
}
/* 66 0F 76 */
SSE_RM_LEAN(pcmpeqd, load_m128a) { for (int i = 0; i < 4; i++) d->d[i] = d->d[i] == s->d[i] ? ~0u : 0; }
/* 66 0F 64 */
SSE_RM_LEAN(pcmpgtb, load_m128a) {
  for (int i = 0; i < 16; i++) d->b[i] = d->sb[i] > s->sb[i] ? 0xff : 0;
}
/* 66 0F 65 */
SSE_RM_LEAN(pcmpgtw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = d->sw[i] > s->sw[i] ? 0xffff : 0;
}
/* 66 0F 66 */
SSE_RM_LEAN(pcmpgtd, load_m128a) { for (int i = 0; i < 4; i++) d->d[i] = d->sd[i] > s->sd[i] ? ~0u : 0; }

/* ---- wrapping add and subtract ---- */

/* 66 0F FC */
SSE_RM_LEAN(paddb, load_m128a) { for (int i = 0; i < 16; i++) d->b[i] += s->b[i]; }
/* 66 0F FD */
SSE_RM_LEAN(paddw, load_m128a) { for (int i = 0; i < 8; i++) d->w[i] += s->w[i]; }
/* 66 0F FE */
SSE_RM_LEAN(paddd, load_m128a) { for (int i = 0; i < 4; i++) d->d[i] += s->d[i]; }
/* 66 0F D4 */
SSE_RM_LEAN(paddq, load_m128a) { for (int i = 0; i < 2; i++) d->q[i] += s->q[i]; }
/* 66 0F F8 */
SSE_RM_LEAN(psubb, load_m128a) { for (int i = 0; i < 16; i++) d->b[i] -= s->b[i]; }
/* 66 0F F9 */
SSE_RM_LEAN(psubw, load_m128a) { for (int i = 0; i < 8; i++) d->w[i] -= s->w[i]; }
/* 66 0F FA */
SSE_RM_LEAN(psubd, load_m128a) { for (int i = 0; i < 4; i++) d->d[i] -= s->d[i]; }
/* 66 0F FB */
SSE_RM_LEAN(psubq, load_m128a) { for (int i = 0; i < 2; i++) d->q[i] -= s->q[i]; }

/* ---- saturating add and subtract ---- */

static inline uint8_t sat_u8(int v) { return v < 0 ? 0 : v > 0xff ? 0xff : (uint8_t)v; }
static inline uint16_t sat_u16(int v) { return v < 0 ? 0 : v > 0xffff ? 0xffff : (uint16_t)v; }
static inline int8_t sat_s8(int v) { return v < -128 ? -128 : v > 127 ? 127 : (int8_t)v; }
static inline int16_t sat_s16(int v) {
  return v < -32768 ? -32768 : v > 32767 ? 32767 : (int16_t)v;
}

/* 66 0F DC */
SSE_RM_LEAN(paddusb, load_m128a) { for (int i = 0; i < 16; i++) d->b[i] = sat_u8(d->b[i] + s->b[i]); }
/* 66 0F DD */
SSE_RM_LEAN(paddusw, load_m128a) { for (int i = 0; i < 8; i++) d->w[i] = sat_u16(d->w[i] + s->w[i]); }
/* 66 0F D8 */
SSE_RM_LEAN(psubusb, load_m128a) { for (int i = 0; i < 16; i++) d->b[i] = sat_u8(d->b[i] - s->b[i]); }
/* 66 0F D9 */
SSE_RM_LEAN(psubusw, load_m128a) { for (int i = 0; i < 8; i++) d->w[i] = sat_u16(d->w[i] - s->w[i]); }
/* 66 0F EC */
SSE_RM_LEAN(paddsb, load_m128a) { for (int i = 0; i < 16; i++) d->sb[i] = sat_s8(d->sb[i] + s->sb[i]); }
/* 66 0F ED */
SSE_RM_LEAN(paddsw, load_m128a) { for (int i = 0; i < 8; i++) d->sw[i] = sat_s16(d->sw[i] + s->sw[i]); }
/* 66 0F E8 */
SSE_RM_LEAN(psubsb, load_m128a) { for (int i = 0; i < 16; i++) d->sb[i] = sat_s8(d->sb[i] - s->sb[i]); }
/* 66 0F E9 */
SSE_RM_LEAN(psubsw, load_m128a) { for (int i = 0; i < 8; i++) d->sw[i] = sat_s16(d->sw[i] - s->sw[i]); }

/* ---- minimum, maximum, average, sum of absolute differences ---- */

/* 66 0F DA */
SSE_RM_LEAN(pminub, load_m128a) {
  for (int i = 0; i < 16; i++) if (s->b[i] < d->b[i]) d->b[i] = s->b[i];
}
/* 66 0F DE */
SSE_RM_LEAN(pmaxub, load_m128a) {
  for (int i = 0; i < 16; i++) if (s->b[i] > d->b[i]) d->b[i] = s->b[i];
}
/* 66 0F EA */
SSE_RM_LEAN(pminsw, load_m128a) {
  for (int i = 0; i < 8; i++) if (s->sw[i] < d->sw[i]) d->sw[i] = s->sw[i];
}
/* 66 0F EE */
SSE_RM_LEAN(pmaxsw, load_m128a) {
  for (int i = 0; i < 8; i++) if (s->sw[i] > d->sw[i]) d->sw[i] = s->sw[i];
}
/* 66 0F E0: rounds half up */
SSE_RM_LEAN(pavgb, load_m128a) {
  for (int i = 0; i < 16; i++) d->b[i] = (uint8_t)((d->b[i] + s->b[i] + 1) >> 1);
}
/* 66 0F E3 */
SSE_RM_LEAN(pavgw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = (uint16_t)((d->w[i] + s->w[i] + 1) >> 1);
}
/* 66 0F F6: each 8-byte half sums to a word in its low 16 bits; the rest is zero */
SSE_RM_LEAN(psadbw, load_m128a) {
  uint64_t sum[2] = {0, 0};
  for (int i = 0; i < 16; i++) {
    int diff = d->b[i] - s->b[i];
    sum[i / 8] += (uint64_t)(diff < 0 ? -diff : diff);
  }
  d->q[0] = sum[0];
  d->q[1] = sum[1];
}

/* ---- multiplies ---- */

/* 66 0F D5 (the words multiplied as unsigned: promoted to int, their product overflows) */
SSE_RM_LEAN(pmullw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = (uint16_t)((uint32_t)d->w[i] * s->w[i]);
}
/* 66 0F E5 */
SSE_RM_LEAN(pmulhw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = (uint16_t)(((int32_t)d->sw[i] * s->sw[i]) >> 16);
}
/* 66 0F E4 */
SSE_RM_LEAN(pmulhuw, load_m128a) {
  for (int i = 0; i < 8; i++) d->w[i] = (uint16_t)(((uint32_t)d->w[i] * s->w[i]) >> 16);
}
/* 66 0F F4: the even doublewords, unsigned, to full quadwords */
SSE_RM_LEAN(pmuludq, load_m128a) {
  xmm_put_pair(d, (uint64_t)d->d[0] * s->d[0], (uint64_t)d->d[2] * s->d[2]);
}
/* 66 0F F5: pairs of signed word products summed; only -32768^2 * 2 wraps */
SSE_RM_LEAN(pmaddwd, load_m128a) {
  Xmm r;
  for (int i = 0; i < 4; i++) {
    uint32_t lo = (uint32_t)((int32_t)d->sw[2 * i] * s->sw[2 * i]);
    uint32_t hi = (uint32_t)((int32_t)d->sw[2 * i + 1] * s->sw[2 * i + 1]);
    r.d[i] = lo + hi;
  }
  *d = r;
}

/* ---- shifts: a count above the lane width clears the lane (arithmetic: fills signs) ---- */

/* With the host's own shifts where it has them: x86-64's take the count from a register
 * and follow the same rule; aarch64's USHL and SSHL shift right by a negative count and
 * clear (fill) a lane shifted by its width. One 16-byte result either way: lanes stored
 * one by one made the next instruction's read of the register wait for all of them. */
#if defined(__aarch64__)
/* The count as the shift instructions take it: at most the lane width, negated for a
 * right shift. */
#define NEON_COUNT(n, bits, right) ((int8_t)((n) > (bits) ? (bits) : (n)) * ((right) ? -1 : 1))
#endif

/* A logical shift of every lane, left or right. */
static inline void shift_lanes(Xmm *x, unsigned bits, uint64_t n, bool right) {
#if defined(__SSE2__)
  __m128i v = _mm_load_si128((const __m128i *)x), k = _mm_cvtsi64_si128((long long)n);
  if (right)
    v = bits == 16 ? _mm_srl_epi16(v, k) : bits == 32 ? _mm_srl_epi32(v, k) : _mm_srl_epi64(v, k);
  else
    v = bits == 16 ? _mm_sll_epi16(v, k) : bits == 32 ? _mm_sll_epi32(v, k) : _mm_sll_epi64(v, k);
  _mm_store_si128((__m128i *)x, v);
#elif defined(__aarch64__)
  int8_t k = NEON_COUNT(n, bits, right);
  if (bits == 16) vst1q_u16(x->w, vshlq_u16(vld1q_u16(x->w), vdupq_n_s16(k)));
  else if (bits == 32) vst1q_u32(x->d, vshlq_u32(vld1q_u32(x->d), vdupq_n_s32(k)));
  else vst1q_u64(x->q, vshlq_u64(vld1q_u64(x->q), vdupq_n_s64(k)));
#else
  for (unsigned i = 0; i < 128 / bits; i++) {
    uint64_t lane = bits == 16 ? x->w[i] : bits == 32 ? x->d[i] : x->q[i];
    lane = n >= bits ? 0 : right ? lane >> n : lane << n;
    if (bits == 16) x->w[i] = (uint16_t)lane;
    else if (bits == 32) x->d[i] = (uint32_t)lane;
    else x->q[i] = lane;
  }
#endif
}
static inline void shl_lanes(Xmm *x, unsigned bits, uint64_t n) { shift_lanes(x, bits, n, false); }
static inline void shr_lanes(Xmm *x, unsigned bits, uint64_t n) { shift_lanes(x, bits, n, true); }

static inline void sar_lanes(Xmm *x, unsigned bits, uint64_t n) {
#if defined(__SSE2__)
  __m128i v = _mm_load_si128((const __m128i *)x), k = _mm_cvtsi64_si128((long long)n);
  v = bits == 16 ? _mm_sra_epi16(v, k) : _mm_sra_epi32(v, k);
  _mm_store_si128((__m128i *)x, v);
#elif defined(__aarch64__)
  int8_t k = NEON_COUNT(n, bits, true);
  if (bits == 16) vst1q_s16(x->sw, vshlq_s16(vld1q_s16(x->sw), vdupq_n_s16(k)));
  else vst1q_s32(x->sd, vshlq_s32(vld1q_s32(x->sd), vdupq_n_s32(k)));
#else
  if (n > bits - 1) n = bits - 1;
  if (bits == 16) for (int i = 0; i < 8; i++) x->sw[i] = (int16_t)(x->sw[i] >> n);
  else for (int i = 0; i < 4; i++) x->sd[i] >>= n;
#endif
}

/* Count in the low quadword of the source. */
/* 66 0F F1 */
SSE_RM_LEAN(psllw, load_m128a) { shl_lanes(d, 16, s->q[0]); }
/* 66 0F F2 */
SSE_RM_LEAN(pslld, load_m128a) { shl_lanes(d, 32, s->q[0]); }
/* 66 0F F3 */
SSE_RM_LEAN(psllq, load_m128a) { shl_lanes(d, 64, s->q[0]); }
/* 66 0F D1 */
SSE_RM_LEAN(psrlw, load_m128a) { shr_lanes(d, 16, s->q[0]); }
/* 66 0F D2 */
SSE_RM_LEAN(psrld, load_m128a) { shr_lanes(d, 32, s->q[0]); }
/* 66 0F D3 */
SSE_RM_LEAN(psrlq, load_m128a) { shr_lanes(d, 64, s->q[0]); }
/* 66 0F E1 */
SSE_RM_LEAN(psraw, load_m128a) { sar_lanes(d, 16, s->q[0]); }
/* 66 0F E2 */
SSE_RM_LEAN(psrad, load_m128a) { sar_lanes(d, 32, s->q[0]); }

/* Immediate counts (groups 12..14): the register is ModRM.rm, the count in->imm. */
/* 66 0F 71 /6 */
LEAN void op_psllw_imm(Cpu *c, const Insn *in) {
  shl_lanes(&c->xmm[in->rm], 16, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 72 /6 */
LEAN void op_pslld_imm(Cpu *c, const Insn *in) {
  shl_lanes(&c->xmm[in->rm], 32, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 73 /6 */
LEAN void op_psllq_imm(Cpu *c, const Insn *in) {
  shl_lanes(&c->xmm[in->rm], 64, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 71 /2 */
LEAN void op_psrlw_imm(Cpu *c, const Insn *in) {
  shr_lanes(&c->xmm[in->rm], 16, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 72 /2 */
LEAN void op_psrld_imm(Cpu *c, const Insn *in) {
  shr_lanes(&c->xmm[in->rm], 32, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 73 /2 */
LEAN void op_psrlq_imm(Cpu *c, const Insn *in) {
  shr_lanes(&c->xmm[in->rm], 64, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 71 /4 */
LEAN void op_psraw_imm(Cpu *c, const Insn *in) {
  sar_lanes(&c->xmm[in->rm], 16, in->imm);
  DISPATCH_LEAN(c, in);
}
/* 66 0F 72 /4 */
LEAN void op_psrad_imm(Cpu *c, const Insn *in) {
  sar_lanes(&c->xmm[in->rm], 32, in->imm);
  DISPATCH_LEAN(c, in);
}

/* ---- the MMX forms (0F without a prefix): the same bodies on the low halves ---- */

MMX_FROM_SSE(pand, pand, mmx_lanes)
MMX_FROM_SSE(pandn, pandn, mmx_lanes)
MMX_FROM_SSE(por, por, mmx_lanes)
MMX_FROM_SSE(pxor, pxor, mmx_lanes)
MMX_FROM_SSE(pcmpeqb, pcmpeqb, mmx_lanes)
MMX_FROM_SSE(pcmpeqw, pcmpeqw, mmx_lanes)
MMX_FROM_SSE(pcmpeqd, pcmpeqd, mmx_lanes)
MMX_FROM_SSE(pcmpgtb, pcmpgtb, mmx_lanes)
MMX_FROM_SSE(pcmpgtw, pcmpgtw, mmx_lanes)
MMX_FROM_SSE(pcmpgtd, pcmpgtd, mmx_lanes)
MMX_FROM_SSE(paddb, paddb, mmx_lanes)
MMX_FROM_SSE(paddw, paddw, mmx_lanes)
MMX_FROM_SSE(paddd, paddd, mmx_lanes)
MMX_FROM_SSE(paddq, paddq, mmx_lanes)
MMX_FROM_SSE(psubb, psubb, mmx_lanes)
MMX_FROM_SSE(psubw, psubw, mmx_lanes)
MMX_FROM_SSE(psubd, psubd, mmx_lanes)
MMX_FROM_SSE(psubq, psubq, mmx_lanes)
MMX_FROM_SSE(paddusb, paddusb, mmx_lanes)
MMX_FROM_SSE(paddusw, paddusw, mmx_lanes)
MMX_FROM_SSE(psubusb, psubusb, mmx_lanes)
MMX_FROM_SSE(psubusw, psubusw, mmx_lanes)
MMX_FROM_SSE(paddsb, paddsb, mmx_lanes)
MMX_FROM_SSE(paddsw, paddsw, mmx_lanes)
MMX_FROM_SSE(psubsb, psubsb, mmx_lanes)
MMX_FROM_SSE(psubsw, psubsw, mmx_lanes)
MMX_FROM_SSE(pminub, pminub, mmx_lanes)
MMX_FROM_SSE(pmaxub, pmaxub, mmx_lanes)
MMX_FROM_SSE(pminsw, pminsw, mmx_lanes)
MMX_FROM_SSE(pmaxsw, pmaxsw, mmx_lanes)
MMX_FROM_SSE(pavgb, pavgb, mmx_lanes)
MMX_FROM_SSE(pavgw, pavgw, mmx_lanes)
MMX_FROM_SSE(psadbw, psadbw, mmx_lanes)
MMX_FROM_SSE(pmullw, pmullw, mmx_lanes)
MMX_FROM_SSE(pmulhw, pmulhw, mmx_lanes)
MMX_FROM_SSE(pmulhuw, pmulhuw, mmx_lanes)
MMX_FROM_SSE(pmuludq, pmuludq, mmx_lanes)
MMX_FROM_SSE(pmaddwd, pmaddwd, mmx_lanes)
MMX_FROM_SSE(psllw, psllw, mmx_lanes)
MMX_FROM_SSE(pslld, pslld, mmx_lanes)
MMX_FROM_SSE(psllq, psllq, mmx_lanes)
MMX_FROM_SSE(psrlw, psrlw, mmx_lanes)
MMX_FROM_SSE(psrld, psrld, mmx_lanes)
MMX_FROM_SSE(psrlq, psrlq, mmx_lanes)
MMX_FROM_SSE(psraw, psraw, mmx_lanes)
MMX_FROM_SSE(psrad, psrad, mmx_lanes)

/* 0F 71..73 /2 /4 /6: MMX shifts by an immediate (no byte shifts). */
#define MMX_SHIFT_IMM(name, lanes, bits)                                               \
  void op_mmx_##name(Cpu *c, const Insn *in) {                                         \
    mmx_begin(c);                                                                      \
    Xmm x = {.q = {mmx_get(c, in->rm), 0}};                                            \
    lanes(&x, bits, in->imm);                                                          \
    mmx_set(c, in->rm, x.q[0]);                                                        \
    DISPATCH_NEXT(c, in);                                                              \
  }
MMX_SHIFT_IMM(psllw_imm, shl_lanes, 16)
MMX_SHIFT_IMM(pslld_imm, shl_lanes, 32)
MMX_SHIFT_IMM(psllq_imm, shl_lanes, 64)
MMX_SHIFT_IMM(psrlw_imm, shr_lanes, 16)
MMX_SHIFT_IMM(psrld_imm, shr_lanes, 32)
MMX_SHIFT_IMM(psrlq_imm, shr_lanes, 64)
MMX_SHIFT_IMM(psraw_imm, sar_lanes, 16)
MMX_SHIFT_IMM(psrad_imm, sar_lanes, 32)

/* ---- AVX forms (VEX.128: AVX; VEX.256: AVX2), on the bodies above ---- */

AVX_RM_LEAN(pand, load_m128u) AVX_RM_LEAN(pandn, load_m128u) AVX_RM_LEAN(por, load_m128u) AVX_RM_LEAN(pxor, load_m128u)
AVX_RM_LEAN(pcmpeqb, load_m128u) AVX_RM_LEAN(pcmpeqw, load_m128u) AVX_RM_LEAN(pcmpeqd, load_m128u)
AVX_RM_LEAN(pcmpgtb, load_m128u) AVX_RM_LEAN(pcmpgtw, load_m128u) AVX_RM_LEAN(pcmpgtd, load_m128u)
AVX_RM_LEAN(paddb, load_m128u) AVX_RM_LEAN(paddw, load_m128u) AVX_RM_LEAN(paddd, load_m128u) AVX_RM_LEAN(paddq, load_m128u)
AVX_RM_LEAN(psubb, load_m128u) AVX_RM_LEAN(psubw, load_m128u) AVX_RM_LEAN(psubd, load_m128u) AVX_RM_LEAN(psubq, load_m128u)
AVX_RM_LEAN(paddusb, load_m128u) AVX_RM_LEAN(paddusw, load_m128u) AVX_RM_LEAN(psubusb, load_m128u)
AVX_RM_LEAN(psubusw, load_m128u) AVX_RM_LEAN(paddsb, load_m128u) AVX_RM_LEAN(paddsw, load_m128u)
AVX_RM_LEAN(psubsb, load_m128u) AVX_RM_LEAN(psubsw, load_m128u)
AVX_RM_LEAN(pminub, load_m128u) AVX_RM_LEAN(pmaxub, load_m128u) AVX_RM_LEAN(pminsw, load_m128u) AVX_RM_LEAN(pmaxsw, load_m128u)
AVX_RM_LEAN(pavgb, load_m128u) AVX_RM_LEAN(pavgw, load_m128u) AVX_RM_LEAN(psadbw, load_m128u)
AVX_RM_LEAN(pmullw, load_m128u) AVX_RM_LEAN(pmulhw, load_m128u) AVX_RM_LEAN(pmulhuw, load_m128u)
AVX_RM_LEAN(pmuludq, load_m128u) AVX_RM_LEAN(pmaddwd, load_m128u)

/* Shifts by a count in an XMM register or m128: the count is the source's low quadword,
 * the same for both lanes of VEX.256. */
#define AVX_SHIFT_COUNT(name)                                                           \
  AVX_128(name, load_m128u)                                                             \
  static inline void name##_lanes(Cpu *c, const Insn *in, const Xmm *count) {           \
    Xmm dv[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]};                                  \
    name##_body(c, in, &dv[0], count);                                                  \
    name##_body(c, in, &dv[1], count);                                                  \
    c->xmm[in->reg] = dv[0];                                                            \
    c->ymmh[in->reg] = dv[1];                                                           \
  }                                                                                     \
  void op_v##name##_256(Cpu *c, const Insn *in) {                                       \
    Xmm count = c->xmm[in->rm];                                                         \
    name##_lanes(c, in, &count);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_v##name##_256_m(Cpu *c, const Insn *in) {                                     \
    Xmm count;                                                                          \
    load_m128u(c, in, &count);                                                          \
    name##_lanes(c, in, &count);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }
AVX_SHIFT_COUNT(psllw) AVX_SHIFT_COUNT(pslld) AVX_SHIFT_COUNT(psllq)
AVX_SHIFT_COUNT(psrlw) AVX_SHIFT_COUNT(psrld) AVX_SHIFT_COUNT(psrlq)
AVX_SHIFT_COUNT(psraw) AVX_SHIFT_COUNT(psrad)

/* Shifts by an imm8 (VEX 66 0F 71..73): ModRM.rm shifted into VEX.vvvv, lane by lane. */
#define AVX_SHIFT_IMM(name, shift, bits)                                                \
  LEAN void op_v##name(Cpu *c, const Insn *in) {                                        \
    Xmm v = c->xmm[in->rm];                                                             \
    shift(&v, bits, in->imm);                                                           \
    vex128_put(c, in->vreg, &v);                                                        \
    DISPATCH_LEAN(c, in);                                                               \
  }                                                                                     \
  LEAN void op_v##name##_256(Cpu *c, const Insn *in) {                                  \
    Xmm lo = c->xmm[in->rm], hi = c->ymmh[in->rm];                                      \
    shift(&lo, bits, in->imm);                                                          \
    shift(&hi, bits, in->imm);                                                          \
    c->xmm[in->vreg] = lo;                                                              \
    c->ymmh[in->vreg] = hi;                                                             \
    DISPATCH_LEAN(c, in);                                                               \
  }
AVX_SHIFT_IMM(psllw_imm, shl_lanes, 16) AVX_SHIFT_IMM(pslld_imm, shl_lanes, 32)
AVX_SHIFT_IMM(psllq_imm, shl_lanes, 64) AVX_SHIFT_IMM(psrlw_imm, shr_lanes, 16)
AVX_SHIFT_IMM(psrld_imm, shr_lanes, 32) AVX_SHIFT_IMM(psrlq_imm, shr_lanes, 64)
AVX_SHIFT_IMM(psraw_imm, sar_lanes, 16) AVX_SHIFT_IMM(psrad_imm, sar_lanes, 32)
