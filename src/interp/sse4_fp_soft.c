/* sse4_fp_soft.c: the portable tier of the SSE3 and SSE4.1 float kernels: horizontal
 * and alternating arithmetic, dot products (one-lane steps of sse_fp.h in the CPU's
 * order) and rounding to an integer (on the bits, exact in every mode). */
#include "sse4_fp.h"

#include "mxcsr.h"

/* a op b on one lane, with sse_fp.h's x86 rules (NaNs, DAZ/FTZ, flags). */
static uint64_t lane_op(enum FpOp op, bool f64, uint64_t a, uint64_t b, uint32_t mx,
                        uint32_t *fl) {
  Xmm x = {.q = {0, 0}}, y = {.q = {0, 0}};
  if (f64) {
    x.q[0] = a;
    y.q[0] = b;
    *fl |= soft_arith(op, FP_SD, &x, &y, mx);
    return x.q[0];
  }
  x.d[0] = (uint32_t)a;
  y.d[0] = (uint32_t)b;
  *fl |= soft_arith(op, FP_SS, &x, &y, mx);
  return x.d[0];
}

/* Lane i of x as raw bits, and the other way. */
static uint64_t get(bool f64, const Xmm *x, unsigned i) { return f64 ? x->q[i] : x->d[i]; }
static void put(bool f64, Xmm *x, unsigned i, uint64_t v) {
  if (f64) x->q[i] = v;
  else x->d[i] = (uint32_t)v;
}

uint32_t soft_horizontal(enum FpOp op, bool f64, Xmm *d, const Xmm *s, uint32_t mx) {
  uint32_t fl = 0;
  unsigned half = f64 ? 1 : 2; /* result lanes taken from each operand */
  Xmm r;
  for (unsigned i = 0; i < half; i++) {
    put(f64, &r, i, lane_op(op, f64, get(f64, d, 2 * i), get(f64, d, 2 * i + 1), mx, &fl));
    put(f64, &r, half + i,
        lane_op(op, f64, get(f64, s, 2 * i), get(f64, s, 2 * i + 1), mx, &fl));
  }
  *d = r;
  return fl;
}

uint32_t soft_addsub(bool f64, Xmm *d, const Xmm *s, uint32_t mx) {
  uint32_t fl = 0;
  for (unsigned i = 0; i < (f64 ? 2u : 4u); i++)
    put(f64, d, i, lane_op(i & 1 ? FP_ADD : FP_SUB, f64, get(f64, d, i), get(f64, s, i), mx, &fl));
  return fl;
}

/* One lane rounded to an integral value. NaNs are quieted (an SNaN is invalid); the
 * result is inexact unless imm8 bit 3 suppresses it; with DAZ a denormal is a zero. */
static uint64_t round_lane(bool f64, uint64_t u, unsigned imm, uint32_t mx, uint32_t *fl) {
  const unsigned mant = f64 ? 52 : 23;
  const int bias = f64 ? 1023 : 127;
  const uint64_t sign = 1ull << (f64 ? 63 : 31);
  const uint64_t exp = (f64 ? 0x7FFull : 0xFFull) << mant;
  const uint64_t quiet = 1ull << (mant - 1);
  uint64_t mag = u & ~sign;
  if (mag > exp) {
    if (!(u & quiet)) *fl |= MXCSR_IE;
    return u | quiet;
  }
  if ((mx & MXCSR_DAZ) && !(mag & exp)) mag = 0;
  if (mag == 0) return u & sign;
  int e = (int)(mag >> mant) - bias;
  if (e >= (int)mant) return u; /* already integral, or infinite */
  bool neg = (u & sign) != 0;
  unsigned mode = imm & 4 ? (mx & MXCSR_RC) >> MXCSR_RC_SHIFT : imm & 3;
  uint64_t r;
  if (e < 0) { /* 0 < |x| < 1: the result is 0 or 1 in magnitude */
    bool one;
    switch (mode) {
    case 0: one = mag > (uint64_t)(bias - 1) << mant; break; /* above one half */
    case 1: one = neg; break;
    case 2: one = !neg; break;
    default: one = false; break;
    }
    r = one ? (uint64_t)bias << mant : 0;
  } else {
    unsigned frac_bits = mant - (unsigned)e;
    uint64_t unit = 1ull << frac_bits, rem = mag & (unit - 1), whole = mag - rem;
    if (!rem) return u;
    bool up;
    switch (mode) {
    case 0: up = rem > unit / 2 || (rem == unit / 2 && (whole & unit)); break;
    case 1: up = neg; break;
    case 2: up = !neg; break;
    default: up = false; break;
    }
    r = whole + (up ? unit : 0); /* a carry into the exponent is still right */
  }
  if (!(imm & 8)) *fl |= MXCSR_PE;
  return r | (u & sign);
}

uint32_t soft_round(enum FpShape sh, unsigned imm, Xmm *d, const Xmm *s, uint32_t mx) {
  bool f64 = sh == FP_PD || sh == FP_SD;
  unsigned lanes = sh == FP_PS ? 4 : sh == FP_PD ? 2 : 1;
  uint32_t fl = 0;
  for (unsigned i = 0; i < lanes; i++)
    put(f64, d, i, round_lane(f64, get(f64, s, i), imm, mx, &fl));
  return fl;
}

/* The products of the lanes imm8 bits 7:4 pick (others +0.0, raising nothing), summed
 * pairwise. The CPU adds in a different order for each result lane, which shows only
 * in the NaN that propagates: DPPS lane i is (P[i^1] + P[i]) + (P[i^3] + P[i^2]) with
 * the left sum first, DPPD lane i is P[i] + P[i^1]. */
uint32_t soft_dp(bool f64, unsigned imm, Xmm *d, const Xmm *s, uint32_t mx,
                 uint32_t steps[DP_STEPS]) {
  unsigned lanes = f64 ? 2 : 4;
  uint64_t p[4], t[4], r[4];
  steps[0] = steps[1] = steps[2] = 0;
  for (unsigned i = 0; i < lanes; i++)
    p[i] = imm >> (4 + i) & 1 ? lane_op(FP_MUL, f64, get(f64, d, i), get(f64, s, i), mx, &steps[0])
                              : 0;
  if (f64) {
    for (unsigned i = 0; i < 2; i++) r[i] = lane_op(FP_ADD, true, p[i], p[i ^ 1], mx, &steps[1]);
  } else {
    for (unsigned i = 0; i < 4; i++) t[i] = lane_op(FP_ADD, false, p[i ^ 1], p[i], mx, &steps[1]);
    for (unsigned i = 0; i < 4; i++) r[i] = lane_op(FP_ADD, false, t[i], t[i ^ 2], mx, &steps[2]);
  }
  for (unsigned i = 0; i < lanes; i++) put(f64, d, i, imm >> i & 1 ? r[i] : 0);
  return steps[0] | steps[1] | steps[2];
}
