/* f80_trig.c: FSIN, FCOS, FSINCOS and FPTAN, with the CPU's argument reduction. */
#define _GNU_SOURCE /* the C library's _Float128 functions */
#define X64EMU_F80_TRANS_PRIVATE
#include "f80_trans.h"

#include <math.h>

#include "f80_round.h"
#include "x87.h"

/* The CPU reduces by its 66-bit pi (F80_PIO2), not the exact one. The remainder
 * x - k pi/2, exact in that pi, decides the last bit of the result: with the exact pi
 * only 60 to 80% of the CPU's results come out (measured). */
static const u128 PIO2 = F80_PIO2;

/* Below 2^-68 the CPU returns sin x = tan x = x and cos x = 1, inexact but not rounded
 * (C1 clear in every rounding mode). Below 2^-33 its FPTAN drops the x^3/3 and errs to
 * below |x|: rounded as a value a little less than x, except a power of two, which
 * comes back as itself. */
enum { TINY_EXP = -68, TAN_SMALL_EXP = -33 };

/* r = |x| - k pi/2 with |r| <= pi/4, exactly in binary128 (a multiple of 2^-65 below
 * 2^64), and the quadrant k mod 4. */
typedef struct Reduced {
  Q r;
  unsigned quadrant;
} Reduced;

static Reduced reduce(Parts p) {
  Reduced red = {f80_sig_q((Parts){false, p.exp, p.sig}) * ldexpf128(1, p.exp), 0};
  /* Up to pi/4 nothing is reduced: the largest 80-bit value below pi/4 is
   * 0xC90FDAA22168C234 * 2^-64. Nearest k, not truncated: measured. */
  if (p.exp < -1 || (p.exp == -1 && p.sig <= 0xC90FDAA22168C234ull)) return red;
  /* In units of 2^-65, |x| = sig << (exp + 2) < 2^128 for |x| < 2^63. */
  u128 ux = (u128)p.sig << (p.exp + 2);
  uint64_t k = (uint64_t)((Q)ux / (Q)PIO2 + 0.5Q);
  /* k may be off by one; the remainder, computed modulo 2^128, is exact. */
  __int128 rem = (__int128)(ux - (u128)k * PIO2);
  __int128 half = (__int128)(PIO2 >> 1); /* PIO2 is odd: |rem| is never exactly half */
  if (rem > half) {
    rem -= (__int128)PIO2;
    k++;
  } else if (rem < -half) {
    rem += (__int128)PIO2;
    k--;
  }
  red.r = (Q)rem * ldexpf128(1, -65);
  red.quadrant = k & 3;
  return red;
}

static F80 one(void) { return f80_make(false, F80_BIAS, F80_INT_BIT); }

typedef enum { TRIG_SIN, TRIG_COS, TRIG_TAN } TrigKind;

/* The operands that take no evaluation: true with *r set (for FSINCOS, the sine; its
 * cosine is then one() when x is zero or tiny, else *r too). */
static bool trig_special(F80 x, TrigKind kind, F80 *r, bool *out_of_range, F80Env *env) {
  *out_of_range = false;
  if (f80_nan_operands(x, x, false, r, env)) return true;
  switch (f80_class(x)) {
  case F80_INF:
    env->sw |= X87_IE;
    *r = f80_indefinite();
    return true;
  case F80_ZERO: *r = kind == TRIG_COS ? one() : x; return true;
  default: break;
  }
  Parts p = f80_parts(x);
  if (p.exp >= 63) {
    *out_of_range = true;
    *r = x;
    return true;
  }
  f80_denormal(env, f80_class(x) == F80_DENORMAL);
  u128 sig = (u128)p.sig << 64; /* x for f80_round_pack, a pseudo-denormal normalized */
  if (p.exp < TINY_EXP) {
    F80 v =
        kind == TRIG_COS ? one() : f80_round_pack(p.neg, p.exp + F80_BIAS, sig, true, 64, env);
    *r = f80_inexact_anyway(v, env);
    return true;
  }
  if (kind == TRIG_TAN && p.exp < TAN_SMALL_EXP) {
    bool pow2 = p.sig == F80_INT_BIT;
    F80 v = f80_round_pack(p.neg, p.exp + F80_BIAS, pow2 ? sig : sig - 1, pow2, 64, env);
    *r = pow2 ? f80_inexact_anyway(v, env) : v;
    return true;
  }
  return false;
}

static bool zero_or_tiny(F80 x) {
  F80Class k = f80_class(x);
  return k == F80_ZERO ||
         ((k == F80_NORMAL || k == F80_DENORMAL) && f80_parts(x).exp < TINY_EXP);
}

/* cos t - 1 for |t| <= 1/16 as the CPU's polynomial gives it: its error, up to 2^-70.4,
 * runs up and down four times over that range, as the error of the best (minimax) even
 * polynomial of degree 8 does; the coefficients of that polynomial for |t| <= 0.0635
 * (computed by the Remez exchange, rounded to 64 bits) reproduce the CPU's results
 * best, and with them 99.9 % of its sines and cosines from 1/4 on (measured). */
static Q cos_minus_one(Q t) {
  static const Q C[4] = {-0x1.fffffffffffffe88p-2Q, 0x1.5555555554e70018p-5Q,
                         -0x1.6c16c143bd28879ap-10Q, 0x1.a00e60020d1e37d2p-16Q};
  Q z = t * t;
  return z * f80_q_polynomial(C, 4, z);
}

/* Below a reduced 1/4 the CPU evaluates polynomials of degree 5 in z = a^2 (a^2 truncated
 * to 67 bits): cos a = 1 + z C(z) and sin a = a + a z S(z). Their coefficients are those
 * of the minimax polynomials, rounded to 67 bits, for the absolute error of cos a up to
 * z = 0.0644 and for the relative error of sin a up to z = 0.0668: found by the phase of
 * the CPU's rounding of the even half below (its steps, read out over runs of consecutive
 * operands, pin the even half to within a hundredth of a unit of 2^-64), which only
 * these minimax polynomials reproduce (the Taylor polynomial's even half is up to 90
 * units away). */
static const Q COS_POLY[6] = {-0x1.ffffffffffffffff8p-2Q, 0x1.555555555555509e8p-5Q,
                              -0x1.6c16c16c16862ed50p-10Q, 0x1.a01a019d6d8e6bb64p-16Q,
                              -0x1.27e4ebd9584de2938p-22Q, 0x1.1e93cb9886801fcf4p-29Q};
static const Q SIN_POLY[6] = {-0x1.55555555555555554p-3Q, 0x1.1111111111110f8d8p-7Q,
                              -0x1.a01a01a019dcf8d04p-13Q, 0x1.71de3a53d473b208cp-19Q,
                              -0x1.ae64448e90e9b4f44p-26Q, 0x1.60c1052e81bd94fe4p-33Q};

static Q square67(Q a) { return f80_q_truncated67(f80_q_product(a, a)); }

/* z p(z) as FSIN and FCOS evaluate it: in two halves in w = z^2, the even coefficients'
 * half rounded to 64 bits, z times it plus w times the odd half, each product truncated
 * to 67 bits. */
static QValue z_times_split(const Q p[6], Q z) {
  Q w = z * z, even = f80_q_rounded(p[0] + w * (p[2] + w * p[4]), 64),
    odd = p[1] + w * (p[3] + w * p[5]);
  return f80_q_sum(f80_q_truncated67(f80_q_product(z, even)),
                   f80_q_truncated67(f80_q_product(w, odd)));
}

/* cos a and sin a for 0 <= a < 1/4. FCOS and FSIN: 1 + z C(z) truncated to 67 bits, and
 * a + a W truncated to 67 bits with W = z S(z) rounded to 64 bits, both through
 * z_times_split. FSINCOS and FPTAN (`paired`) take C(z) and S(z) by Horner's scheme
 * rounded to 64 bits: the cosine 1 + z C truncated to 67 bits, the sine a + a W truncated
 * to 67 bits with W = z S rounded to 64 bits. Measured on an Intel Xeon under all four
 * rounding controls at once: below 1/8 every operand tried; in [1/8, 1/4) FCOS 99.87 %,
 * FSIN 99.97 %, FSINCOS every operand tried. */
static QValue small_sin_cos(Q a, bool want_cos, bool paired) {
  Q z = square67(a);
  const Q *poly = want_cos ? COS_POLY : SIN_POLY;
  QValue zp = paired ? f80_q_product(z, f80_q_rounded(f80_q_polynomial(poly, 6, z), 64))
                     : z_times_split(poly, z);
  if (want_cos) return f80_q_sum(1, f80_q_truncated67(zp));
  return f80_q_sum(a, f80_q_truncated67(f80_q_product(a, f80_q_rounded(zp.v, 64))));
}

/* sin a and cos a for 0 <= a <= pi/4 as the CPU computes them (measured on an Intel Xeon,
 * each step pinned by operands that isolate it): below 1/4 small_sin_cos; from 1/4 on
 * around the middle B of an interval of 1/16 (below 1/2) or 1/8 (above), from sin B and
 * cos B rounded to 67 bits,
 *   sin(B + t) = sin B + (cos B * sin t + sin B * (cos t - 1)),
 *   cos(B + t) = cos B + (-sin B * sin t + cos B * (cos t - 1)),
 * with sin t rounded to 64 bits, cos t - 1 from the CPU's polynomial, each product and their
 * sum truncated to 67 bits; only the last addition keeps every bit. 99.9 % of the CPU's
 * results come out, against 94 to 97 % from the exact functions. */
static QValue cpu_sin_cos(Q a, bool want_cos, bool paired) {
  if (a < 0.25Q) return small_sin_cos(a, want_cos, paired);
  Q grid = a < 0.5Q ? 16 : 8, b = (floorf128(a * grid) + 0.5Q) / grid, t = a - b; /* exact */
  Q sin_b = f80_q_rounded(sinf128(b), 67), cos_b = f80_q_rounded(cosf128(b), 67);
  Q p = want_cos ? cos_b : sin_b, q = want_cos ? -sin_b : cos_b; /* p cos t + q sin t */
  Q linear = f80_q_truncated67(f80_q_product(q, f80_q_rounded(sinf128(t), 64)));
  Q square = f80_q_truncated67(f80_q_product(p, cos_minus_one(t)));
  return f80_q_sum(p, f80_q_truncated67(f80_q_sum(linear, square)));
}

/* sin(r + q pi/2) and cos(r + q pi/2) for the quadrant q; `paired`: as FSINCOS forms
 * them. */
static QValue negated(QValue a) { return (QValue){-a.v, a.side}; }
static QValue sin_of(Q r, bool paired) {
  return r < 0 ? negated(cpu_sin_cos(-r, false, paired)) : cpu_sin_cos(r, false, paired);
}
static QValue cos_of(Q r, bool paired) { return cpu_sin_cos(fabsf128(r), true, paired); }

static QValue sin_in(Reduced red, bool paired) {
  switch (red.quadrant) {
  case 0: return sin_of(red.r, paired);
  case 1: return cos_of(red.r, paired);
  case 2: return negated(sin_of(red.r, paired));
  default: return negated(cos_of(red.r, paired));
  }
}

static QValue cos_in(Reduced red, bool paired) {
  switch (red.quadrant) {
  case 0: return cos_of(red.r, paired);
  case 1: return negated(sin_of(red.r, paired));
  case 2: return negated(cos_of(red.r, paired));
  default: return sin_of(red.r, paired);
  }
}

F80 f80_sin(F80 x, bool *out_of_range, F80Env *env) {
  F80 r;
  if (trig_special(x, TRIG_SIN, &r, out_of_range, env)) return r;
  Parts p = f80_parts(x);
  int saved = f80_q_begin();
  QValue v = sin_in(reduce(p), false);
  f80_q_end(saved);
  return f80_from_value(p.neg ? negated(v) : v, env);
}

F80 f80_cos(F80 x, bool *out_of_range, F80Env *env) {
  F80 r;
  if (trig_special(x, TRIG_COS, &r, out_of_range, env)) return r;
  int saved = f80_q_begin();
  QValue v = cos_in(reduce(f80_parts(x)), false);
  f80_q_end(saved);
  return f80_from_value(v, env);
}

void f80_sincos(F80 x, F80 *sin, F80 *cos, bool *out_of_range, F80Env *env) {
  if (trig_special(x, TRIG_SIN, sin, out_of_range, env)) {
    *cos = zero_or_tiny(x) ? one() : *sin;
    return;
  }
  Parts p = f80_parts(x);
  int saved = f80_q_begin();
  Reduced red = reduce(p);
  QValue s = sin_in(red, true), c = cos_in(red, true);
  f80_q_end(saved);
  *sin = f80_from_value(p.neg ? negated(s) : s, env);
  /* One status word for both: C1 tells how the cosine was rounded (measured). */
  env->sw &= (uint16_t)~X87_C1;
  *cos = f80_from_value(c, env);
}

F80 f80_tan(F80 x, bool *out_of_range, F80Env *env) {
  F80 r;
  if (trig_special(x, TRIG_TAN, &r, out_of_range, env)) return r;
  Parts p = f80_parts(x);
  int saved = f80_q_begin();
  Reduced red = reduce(p);
  /* The sine over the cosine as FSINCOS forms them, each truncated to 67 bits (measured:
   * from 2^-33 to 1/16, where both are exact, every operand tried; below a reduced 1/4
   * FSINCOS's cosine gives FPTAN's bits more often than FCOS's, 99.91 against 99.85 %). */
  Q sin = f80_q_truncated67(sin_in(red, true)), cos = f80_q_truncated67(cos_in(red, true));
  QValue t = f80_q_quotient(sin, cos);
  f80_q_end(saved);
  return f80_from_value(p.neg ? negated(t) : t, env);
}
