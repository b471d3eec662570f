/* f80_trans.c: what the transcendental instructions share (binary128 in and out), and
 * F2XM1 and FPATAN. */
#define _GNU_SOURCE /* the C library's _Float128 functions */
#define X64EMU_F80_TRANS_PRIVATE
#include "f80_trans.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

#include "f80_round.h"
#include "x87.h"

enum { Q_FRAC = 112 }; /* binary128's fraction bits; its exponent bias is F80_BIAS */

/* f80_unpack's normalization, with the exponent unbiased (a zero significand, which it
 * does not take, keeps its exponent field). */
Parts f80_parts(F80 a) {
  if (a.m == 0) return (Parts){f80_sign(a), (int32_t)f80_exp(a) - F80_BIAS, 0};
  Unpacked u = f80_unpack(a);
  return (Parts){u.neg, u.exp - F80_BIAS, u.sig};
}

static Q q_of_bits(u128 bits) {
  Q v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

Q f80_to_q(F80 a) {
  u128 sign = (u128)f80_sign(a) << 127;
  /* A denormal's fraction lands in binary128's subnormal range; a pseudo-denormal's
   * integer bit carries into the exponent, making it the normal it is worth. */
  if (f80_exp(a) == 0) return q_of_bits(sign | (u128)a.m << (Q_FRAC - 63));
  return q_of_bits(sign | (u128)f80_exp(a) << Q_FRAC |
                   (u128)(a.m & ~F80_INT_BIT) << (Q_FRAC - 63));
}

Q f80_sig_q(Parts p) {
  u128 sign = (u128)p.neg << 127;
  return q_of_bits(sign | (u128)F80_BIAS << Q_FRAC |
                   (u128)(p.sig & ~F80_INT_BIT) << (Q_FRAC - 63));
}

static F80 from_q(Q v, int32_t scale, QSide side, int32_t cpu_error, F80Env *env) {
  u128 bits;
  memcpy(&bits, &v, sizeof bits);
  bool neg = bits >> 127;
  int32_t e = (int32_t)(bits >> Q_FRAC) & F80_EXP_MAX;
  u128 frac = bits & (((u128)1 << Q_FRAC) - 1);
  if (e == 0 && frac == 0) {
    if (side == Q_EXACT) return f80_zero(neg);
    /* Lost below binary128's range: far below the 80-bit one too. */
    return f80_round_pack(neg, -F80_BIAS, 1, false, 64, env);
  }
  /* f80_round_pack's scale: sig * 2^(exp - F80_BIAS - 127); the 64 bits it keeps of a
   * normal result are the top ones, so its last place is 2^64. */
  u128 sig = (e ? (u128)1 << Q_FRAC | frac : frac) << (127 - Q_FRAC);
  int32_t exp = (e ? e : 1) + scale;
  if (cpu_error > 0) sig += (u128)cpu_error << (64 - F80_CPU_ERROR_BITS);
  if (cpu_error < 0) sig -= (u128)-cpu_error << (64 - F80_CPU_ERROR_BITS);
  if (side == Q_BELOW) sig -= 1; /* then strictly between sig - 1 and sig */
  return f80_round_pack(neg, exp, sig, side == Q_EXACT, 64, env);
}

F80 f80_from_q(Q v, int32_t scale, QSide side, F80Env *env) {
  return from_q(v, scale, side, 0, env);
}

F80 f80_from_q_cpu(Q v, int32_t scale, int32_t cpu_error, F80Env *env) {
  return from_q(v, scale, Q_BELOW, cpu_error, env);
}

Wide f80_mul_wide(uint64_t a, u128 b) {
  u128 low = (u128)a * (uint64_t)b;
  u128 high = (u128)a * (uint64_t)(b >> 64) + (low >> 64); /* at most 68 bits */
  uint64_t bottom = (uint64_t)low;
  /* a * b = high * 2^64 + bottom */
  if (!(high >> 64)) {
    u128 all = high << 64 | bottom;
    int z = f80_clz128(all);
    return (Wide){all << z, -z, false};
  }
  int z = f80_clz128(high); /* 60 to 63 */
  return (Wide){high << z | bottom >> (64 - z), 64 - z, (uint64_t)(bottom << z) != 0};
}

u128 f80_times_constant(Parts x, u128 k, int32_t k_frac, int32_t *exp) {
  Wide w = f80_mul_wide(x.sig, k);
  /* |x| * k * 2^-k_frac = sig * 2^(exp - 63) * k * 2^-k_frac, and sig * k = top * 2^shift */
  *exp = x.exp - 63 - k_frac + w.shift + (128 - 67);
  return w.top >> (128 - 67);
}

F80 f80_times_rounded(Parts y, bool k_neg, u128 k, int32_t k_exp, F80Env *env) {
  Wide w = f80_mul_wide(y.sig, k);
  /* y * k * 2^k_exp = y.sig * 2^(y.exp - 63) * k * 2^k_exp
   *                = top * 2^(shift + y.exp - 63 + k_exp) */
  int32_t exp = F80_BIAS + 127 + w.shift + y.exp - 63 + k_exp;
  return f80_inexact_anyway(f80_round_pack(y.neg != k_neg, exp, w.top, !w.lost, 64, env), env);
}

u128 f80_q_truncated(Q v, unsigned bits, int32_t *exp) {
  u128 b;
  memcpy(&b, &v, sizeof b);
  int32_t e = (int32_t)(b >> Q_FRAC) & F80_EXP_MAX;
  u128 sig = (b & (((u128)1 << Q_FRAC) - 1)) | (u128)(e != 0) << Q_FRAC;
  int32_t scale = (e ? e : 1) - F80_BIAS - Q_FRAC;
  int length = 128 - f80_clz128(sig);
  *exp = scale + length - (int32_t)bits;
  return sig >> (length - (int)bits);
}

/* Where the exact v + lost lies against v, in magnitude. */
static QSide side_of(Q v, Q lost) {
  return lost == 0 ? Q_EXACT : (lost > 0) == (v > 0) ? Q_ABOVE : Q_BELOW;
}

QValue f80_q_sum(Q a, Q b) {
  /* Fast2Sum: what the rounding of the sum lost, exactly */
  Q s = a + b, lost = fabsf128(a) >= fabsf128(b) ? (a - s) + b : (b - s) + a;
  return (QValue){s, side_of(s, lost)};
}

QValue f80_q_product(Q a, Q b) {
  Q p = a * b, lost = fmaf128(a, b, -p); /* exactly */
  return (QValue){p, side_of(p, lost)};
}

QValue f80_q_quotient(Q a, Q b) {
  Q q = a / b, rest = fmaf128(-q, b, a); /* a - q b exactly: a / b = q + rest / b */
  return (QValue){q, side_of(q, b > 0 ? rest : -rest)};
}

F80 f80_from_value(QValue a, F80Env *env) {
  F80 r = f80_from_q(a.v, 0, a.side, env);
  return a.side == Q_EXACT ? f80_inexact_anyway(r, env) : r;
}

Q f80_q_truncated67(QValue a) {
  /* On the 67-bit grid, but a little less in magnitude: the grid point below. */
  Q v = a.side == Q_BELOW && a.v != 0 ? nextafterf128(a.v, 0) : a.v;
  int32_t exp;
  Q sig = (Q)f80_q_truncated(v, 67, &exp), t = ldexpf128(sig, exp);
  return v < 0 ? -t : t;
}

Q f80_q_rounded(Q v, int bits) {
  int e;
  frexpf128(v, &e);
  return ldexpf128(roundevenf128(ldexpf128(v, bits - e)), e - bits);
}

Q f80_q_polynomial(const Q *c, int n, Q x) {
  Q v = 0;
  for (int k = n - 1; k >= 0; k--) v = c[k] + x * v;
  return v;
}

F80 f80_inexact_anyway(F80 r, F80Env *env) {
  env->sw |= X87_PE;
  if (f80_exp(r) == 0 && r.m && (env->cw & X87_UE)) env->sw |= X87_UE;
  return r;
}

int f80_q_begin(void) {
  int saved = fegetround();
  if (saved != FE_TONEAREST) fesetround(FE_TONEAREST);
  return saved;
}

void f80_q_end(int saved) {
  if (saved != FE_TONEAREST) fesetround(saved);
}

static F80 one(bool neg) { return f80_make(neg, F80_BIAS, F80_INT_BIT); }

/* ---- F2XM1 ---- */

/* ln2 * 2^68, truncated: the CPU's constant for F2XM1 below 1/4. */
static const u128 LN2_68 = (u128)0xB17217F7D1CF79ABull << 4 | 0xC;

/* (e^t - 1 - t - t^2/2) / t^3 = the sum of t^k / (k + 3)! by Horner's scheme, up to
 * k = 13: for |t| < 0.18 the terms left out are below 2^-77 of the sum. */
static Q cubic_factor(Q t) {
  Q v = 0, factorial = 2; /* 2!, then 16! */
  for (int k = 3; k <= 16; k++) factorial *= k;
  for (int k = 16; k >= 3; k--) {
    v = 1 / factorial + t * v;
    factorial /= k;
  }
  return v;
}

/* v rounded to 64 bits, ties away from zero. */
static Q rounded64_ties_away(Q v) {
  int e;
  frexpf128(v, &e);
  return ldexpf128(roundf128(ldexpf128(v, 64 - e)), e - 64);
}

/* t = x * ln2 from LN2_68, the product truncated to 67 bits. */
static Q times_ln2(Parts p) {
  int32_t e;
  u128 sig = f80_times_constant(p, LN2_68, 68, &e);
  Q t = ldexpf128((Q)sig, e);
  return p.neg ? -t : t;
}

/* e^t - 1 - t as the CPU forms it, from t and t64, t rounded to 64 bits (ties away from
 * zero): s = t * t64 truncated to 67 bits, s/2 + s t P(t) with P the cubic factor, the
 * product and the sum each rounded to 64 bits. */
static Q expm1_rest(Q t) {
  Q s = f80_q_truncated67(f80_q_product(t, rounded64_ties_away(t)));
  return f80_q_rounded(s / 2 + f80_q_rounded(s * t * cubic_factor(t), 64), 64);
}

/* 2^x - 1 for 2^-68 <= |x| < 1/4: t = x * ln2 plus expm1_rest(t) (measured on an Intel
 * Xeon: under all four rounding controls at once, 99.9 % of operands from 2^-9 to 1/16,
 * 99.8 % in [1/16, 1/8), 99.7 % in [1/8, 1/4), where the exact rest rounded to 64 bits
 * gives 95 %; found by the CPU's errors, which followed the low bits of t). */
static QValue small_2xm1(Parts p) {
  Q t = times_ln2(p);
  return f80_q_sum(t, expm1_rest(t));
}

/* 2^x - 1 for 1/4 <= |x| < 1 from the CPU's table: T = 2^B - 1 rounded to 67 bits at the
 * middles B of intervals of 1/64 below 1/2 and of 1/32 above (measured on an Intel Xeon:
 * next to every such B the CPU's result is T to 1e-3 of a unit, and the results exact in
 * 64 bits are rarest there), plus (1 + T)(2^r - 1) for r = x - B: 1 + T rounded to 64
 * bits times E = t64 + expm1_rest(t) rounded to 64 bits (t = r * ln2 as below 1/4, t64 it
 * rounded to 64 bits, ties away from zero), the product truncated to 67 bits. That gives
 * the CPU's bits under all four rounding controls for 99.1 to 99.4 % of operands (E as
 * the exact 2^r - 1 rounded: 98.9 to 99.1 %; the exact function: 97 %); how the CPU forms
 * the product is not pinned down. */
static QValue table_2xm1(Q x) {
  Q per = fabsf128(x) < 0.5Q ? 64 : 32, b = (floorf128(x * per) + 0.5Q) / per, r = x - b;
  Q table = f80_q_rounded(expm1f128(b * M_LN2f128), 67), e = 0;
  if (r != 0) { /* r: at most 58 significant bits */
    int k = ilogbf128(r);
    Q t = times_ln2((Parts){r < 0, k, (uint64_t)ldexpf128(fabsf128(r), 63 - k)});
    e = f80_q_rounded(rounded64_ties_away(t) + expm1_rest(t), 64);
  }
  Q rest = f80_q_truncated67(f80_q_product(f80_q_rounded(1 + table, 64), e));
  return f80_q_sum(table, rest);
}

F80 f80_2xm1(F80 x, F80Env *env) {
  F80 r;
  if (f80_nan_operands(x, x, false, &r, env)) return r;
  switch (f80_class(x)) {
  case F80_ZERO: return x;
  case F80_INF: return f80_sign(x) ? one(true) : x; /* the limits, exactly */
  default: break;
  }
  f80_denormal(env, f80_class(x) == F80_DENORMAL);
  Parts p = f80_parts(x);
  /* Outside the documented domain [-1, 1] the CPU returns the operand itself; at +-1
   * the exact 1 and -1/2. Both reported inexact. */
  bool in_domain = p.exp < 0 || (p.exp == 0 && p.sig == F80_INT_BIT);
  if (!in_domain) return f80_inexact_anyway(x, env);
  if (p.exp == 0)
    return f80_inexact_anyway(p.neg ? f80_make(true, F80_BIAS - 1, F80_INT_BIT) : x, env);
  /* Below 2^-68 the CPU returns x * LN2_68 itself, every bit of the product kept and
   * rounded once, neither truncated nor with the rest t^2/2 (measured: every operand
   * tried from 2^-80 to 2^-69 under all four rounding controls, where the truncated t
   * with its rest gives 92 %). */
  if (p.exp < -68) return f80_times_rounded(p, false, LN2_68, -68, env);
  int saved = f80_q_begin();
  QValue v = p.exp < -2 ? small_2xm1(p) : table_2xm1(f80_to_q(x));
  f80_q_end(saved);
  return f80_from_value(v, env);
}

/* ---- FPATAN ---- */

/* A multiple of pi (quarters: 1, 2, 3, 4) with a sign, rounded. */
static F80 pi_quarters(unsigned n, bool neg, F80Env *env) {
  Q v = M_PIf128 / 4 * n;
  return f80_from_q(neg ? -v : v, 0, Q_BELOW, env);
}

/* The quotient y / x correctly rounded, by long division to 128 bits:
 * |y / x| = (y.sig / x.sig) * 2^(y.exp - x.exp), y.sig / x.sig in (1/2, 2). */
static F80 quotient(Parts y, Parts x, F80Env *env) {
  u128 n = (u128)y.sig << 63;
  uint64_t q1 = (uint64_t)(n / x.sig), r1 = (uint64_t)(n % x.sig);
  u128 n2 = (u128)r1 << 64;
  uint64_t q2 = (uint64_t)(n2 / x.sig);
  bool exact = n2 % x.sig == 0;
  /* sig = (y.sig / x.sig) * 2^127 */
  u128 sig = (u128)q1 << 64 | q2;
  return f80_round_pack(y.neg != x.neg, y.exp - x.exp + F80_BIAS, sig, exact, 64, env);
}

/* The angle a in [0, pi/4] of the smaller over the larger, as the result: a itself
 * for x > 0 and |y| < |x|, else pi - a (x < 0), pi/2 - a or pi/2 + a (|y| > |x|, x > 0
 * or x < 0) from a truncated to 67 bits and the CPU's 66-bit pi, rounded once (measured
 * on an Intel Xeon); the sign is y's. */
static F80 angle_result(QValue a, Parts x, Parts y, bool y_larger, F80Env *env) {
  QValue v = a;
  if (x.neg || y_larger) {
    Q pi = ldexpf128((Q)F80_PIO2, -64), inner = f80_q_truncated67(a);
    v = y_larger ? f80_q_sum(pi / 2, x.neg ? inner : -inner) : f80_q_sum(pi, -inner);
  }
  return f80_from_value((QValue){y.neg ? -v.v : v.v, v.side}, env);
}

/* Where the exponents of y and x differ by 5 or more (3 or more with |y| above), the CPU
 * divides the smaller by the larger, truncates the quotient q to 67 bits and takes atan q
 * as the angle (measured on an Intel Xeon: the same bits for every operand tried there). */
static QValue angle_of_quotient(Parts num, Parts den) {
  /* num.sig / den.sig in (1/2, 2), to 128 bits by long division, then its top 67 */
  u128 n = (u128)num.sig << 63;
  uint64_t q1 = (uint64_t)(n / den.sig), r1 = (uint64_t)(n % den.sig);
  uint64_t q2 = (uint64_t)(((u128)r1 << 64) / den.sig);
  u128 sig = (u128)q1 << 64 | q2; /* (num.sig / den.sig) * 2^127 */
  int z = f80_clz128(sig);
  u128 q67 = (sig << z) >> (128 - 67);
  Q q = ldexpf128((Q)q67, num.exp - den.exp - z - 66);
  return (QValue){atanf128(q), Q_BELOW};
}

/* Where they differ by less, and the ratio q of the smaller to the larger is 3/64 or
 * more, the CPU looks the angle up in a table of atan B rounded to 67 bits for B = k/32,
 * the B nearest q, and adds atan d for d = (num - B den) / (den + B num) rounded to 67
 * bits, atan d truncated to 67 bits (measured on an Intel Xeon: each step pinned by
 * ratios next to a table point; 99.9 % of the CPU's results, against 93 % from the exact
 * angle). */
static QValue angle_from_table(Parts num, Parts den) {
  /* Magnitudes scaled alike: den in [1, 2), num within a factor 2^5 below it. */
  Q n = f80_sig_q((Parts){false, 0, num.sig}) * ldexpf128(1, num.exp - den.exp);
  Q m = f80_sig_q((Parts){false, 0, den.sig});
  Q b = roundf128(n / m * 32) / 32;
  if (b < 0.0625Q) return angle_of_quotient(num, den);
  Q d = f80_q_rounded((n - b * m) / (m + b * n), 67); /* numerator, denominator exact */
  Q table = f80_q_rounded(atanf128(b), 67);
  return f80_q_sum(table, f80_q_truncated67((QValue){atanf128(d), Q_EXACT}));
}

F80 f80_atan(F80 x, F80 y, F80Env *env) {
  F80 r;
  if (f80_nan_operands(x, y, true, &r, env)) return r;
  F80Class kx = f80_class(x), ky = f80_class(y);
  bool xneg = f80_sign(x), yneg = f80_sign(y);
  f80_denormal(env, kx == F80_DENORMAL || ky == F80_DENORMAL);
  if (ky == F80_ZERO) return xneg ? pi_quarters(4, yneg, env) : y;
  if (ky == F80_INF) return pi_quarters(kx != F80_INF ? 2 : xneg ? 3 : 1, yneg, env);
  if (kx == F80_ZERO) return pi_quarters(2, yneg, env);
  if (kx == F80_INF) return xneg ? pi_quarters(4, yneg, env) : f80_zero(yneg);
  Parts px = f80_parts(x), py = f80_parts(y);
  /* For |y / x| < 2^-40 and x > 0 the CPU returns the quotient, rounded, without the
   * -(y/x)^3/3 that atan would subtract. */
  int32_t d = py.exp - px.exp;
  if (!xneg && (d < -40 || (d == -40 && py.sig < px.sig)))
    return f80_inexact_anyway(quotient(py, px, env), env);
  bool y_larger = d > 0 || (d == 0 && py.sig > px.sig);
  Parts num = y_larger ? px : py, den = y_larger ? py : px;
  int saved = f80_q_begin();
  QValue a = d <= -5 || d >= 3 ? angle_of_quotient(num, den) : angle_from_table(num, den);
  r = angle_result(a, px, py, y_larger, env); /* binary128 sums: still round to nearest */
  f80_q_end(saved);
  return r;
}
