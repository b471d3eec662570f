/* sse41.c: SSE4.1 integer operations on XMM registers: multiplies, min/max, quadword
 * compare, pack, PTEST, blends (by immediate and by XMM0), MPSADBW, PHMINPOSUW and the
 * non-temporal load. */
#include "flags.h"
#include "ops_sse4.h"
#include "sse_operand.h"

/* ---- multiplies ---- */

/* 66 0F 38 40: the low 32 bits of each product */
SSE_RM(pmulld, load_m128a) { for (int i = 0; i < 4; i++) d->d[i] *= s->d[i]; }
/* 66 0F 38 28: signed dwords 0 and 2 into full quadword products */
SSE_RM(pmuldq, load_m128a) {
  for (int i = 0; i < 2; i++) d->sq[i] = (int64_t)d->sd[2 * i] * s->sd[2 * i];
}

/* ---- compares, min/max, pack ---- */

/* 66 0F 38 29 */
SSE_RM(pcmpeqq, load_m128a) {
  for (int i = 0; i < 2; i++) d->q[i] = d->q[i] == s->q[i] ? ~0ull : 0;
}

#define MINMAX(name, lane, n, op)                                                     \
  SSE_RM(name, load_m128a) {                                                          \
    for (int i = 0; i < (n); i++)                                                     \
      if (s->lane[i] op d->lane[i]) d->lane[i] = s->lane[i];                          \
  }

/* 66 0F 38 38, 39, 3A, 3B */
MINMAX(pminsb, sb, 16, <)
MINMAX(pminsd, sd, 4, <)
MINMAX(pminuw, w, 8, <)
MINMAX(pminud, d, 4, <)
/* 66 0F 38 3C, 3D, 3E, 3F */
MINMAX(pmaxsb, sb, 16, >)
MINMAX(pmaxsd, sd, 4, >)
MINMAX(pmaxuw, w, 8, >)
MINMAX(pmaxud, d, 4, >)

static inline uint16_t sat_u16(int32_t v) { return v < 0 ? 0 : v > 0xffff ? 0xffff : (uint16_t)v; }

/* 66 0F 38 2B: signed dwords to unsigned words with saturation, destination first */
SSE_RM(packusdw, load_m128a) {
  Xmm r;
  for (int i = 0; i < 4; i++) {
    r.w[i] = sat_u16(d->sd[i]);
    r.w[4 + i] = sat_u16(s->sd[i]);
  }
  *d = r;
}

/* 66 0F 38 17: ZF if d AND s is zero, CF if (NOT d) AND s is zero; the other arithmetic
 * flags cleared */
SSE_RM(ptest, load_m128a) {
  bool zf = !((d->q[0] & s->q[0]) | (d->q[1] & s->q[1]));
  bool cf = !((~d->q[0] & s->q[0]) | (~d->q[1] & s->q[1]));
  flags_set(c, (c->rflags & ~(uint64_t)F_ARITH) | (zf ? F_ZF : 0) | (cf ? F_CF : 0));
}

/* ---- blends: lanes of the source where the selector says so ---- */

/* 66 0F 3A 0E: by imm8 bit i, word i */
SSE_RM(pblendw, load_m128a) {
  for (int i = 0; i < 8; i++)
    if (in->imm >> i & 1) d->w[i] = s->w[i];
}
/* 66 0F 3A 0C */
SSE_RM(blendps, load_m128a) {
  for (int i = 0; i < 4; i++)
    if (in->imm >> i & 1) d->d[i] = s->d[i];
}
/* 66 0F 3A 0D */
SSE_RM(blendpd, load_m128a) {
  for (int i = 0; i < 2; i++)
    if (in->imm >> i & 1) d->q[i] = s->q[i];
}
/* 66 0F 38 10: by the top bit of each byte of XMM0 */
SSE_RM(pblendvb, load_m128a) {
  const Xmm *m = &c->xmm[0];
  for (int i = 0; i < 16; i++)
    if (m->b[i] & 0x80) d->b[i] = s->b[i];
}
/* 66 0F 38 14: by the sign bit of each dword of XMM0 */
SSE_RM(blendvps, load_m128a) {
  const Xmm *m = &c->xmm[0];
  for (int i = 0; i < 4; i++)
    if (m->d[i] >> 31) d->d[i] = s->d[i];
}
/* 66 0F 38 15: by the sign bit of each quadword of XMM0 */
SSE_RM(blendvpd, load_m128a) {
  const Xmm *m = &c->xmm[0];
  for (int i = 0; i < 2; i++)
    if (m->q[i] >> 63) d->q[i] = s->q[i];
}

/* ---- sums of absolute differences, minimum search ---- */

/* 66 0F 3A 42: eight sums of |d[o + i + k] - s[p + k]| for k < 4, where imm8 bit 2
 * chooses o (0 or 4) and bits 1:0 the source block p (0, 4, 8, 12). */
SSE_RM(mpsadbw, load_m128a) {
  unsigned o = (unsigned)in->imm & 4, p = ((unsigned)in->imm & 3) * 4;
  Xmm r;
  for (unsigned i = 0; i < 8; i++) {
    unsigned sum = 0;
    for (unsigned k = 0; k < 4; k++) {
      int diff = d->b[o + i + k] - s->b[p + k];
      sum += (unsigned)(diff < 0 ? -diff : diff);
    }
    r.w[i] = (uint16_t)sum;
  }
  *d = r;
}

/* 66 0F 38 41: the smallest unsigned word in word 0, its (first) index in word 1, the
 * rest zero */
SSE_RM(phminposuw, load_m128a) {
  unsigned best = 0;
  for (unsigned i = 1; i < 8; i++)
    if (s->w[i] < s->w[best]) best = i;
  Xmm r = {.q = {0, 0}};
  r.w[0] = s->w[best];
  r.w[1] = (uint16_t)best;
  *d = r;
}

/* ---- loads ---- */

/* 66 0F 38 2A: MOVNTDQA, an aligned load (the streaming hint means nothing here) */
void op_movntdqa_m(Cpu *c, const Insn *in) {
  Xmm t;
  load_m128a(c, in, &t);
  c->xmm[in->reg] = t;
  DISPATCH_NEXT(c, in);
}

/* ---- AVX forms (VEX.128: AVX; VEX.256: AVX2), lane by lane ---- */

AVX_RM(pmulld, load_m128u) AVX_RM(pmuldq, load_m128u) AVX_RM(pcmpeqq, load_m128u)
AVX_RM(pminsb, load_m128u) AVX_RM(pminsd, load_m128u) AVX_RM(pminuw, load_m128u)
AVX_RM(pminud, load_m128u) AVX_RM(pmaxsb, load_m128u) AVX_RM(pmaxsd, load_m128u)
AVX_RM(pmaxuw, load_m128u) AVX_RM(pmaxud, load_m128u) AVX_RM(packusdw, load_m128u)
AVX_RM(pblendw, load_m128u)
AVX_128(mpsadbw, load_m128u) AVX_128(phminposuw, load_m128u)

/* VMPSADBW ymm (AVX2): each lane as MPSADBW, the high one with imm8 bits 5:3. */
static void mpsadbw_lanes(Cpu *c, const Insn *in, const Xmm s[2]) {
  Insn high = *in;
  high.imm = in->imm >> 3;
  Xmm r[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]};
  mpsadbw_body(c, in, &r[0], &s[0]);
  mpsadbw_body(c, &high, &r[1], &s[1]);
  c->xmm[in->reg] = r[0];
  c->ymmh[in->reg] = r[1];
}
YMM_SOURCE_PAIR(vmpsadbw_256, mpsadbw_lanes)

/* VMOVNTDQA (VEX.66.0F38 2A): an aligned load, 16 bytes (AVX) or 32 (AVX2). */
void op_vmovntdqa_m(Cpu *c, const Insn *in) {
  Xmm t;
  load_m128a(c, in, &t);
  vex128_put(c, in->reg, &t);
  DISPATCH_NEXT(c, in);
}
