/* f80_log.c: FYL2X and FYL2XP1, y * log2(x) and y * log2(x + 1). */
#define _GNU_SOURCE /* the C library's _Float128 functions */
#define X64EMU_F80_TRANS_PRIVATE
#include "f80_trans.h"

#include <math.h>

#include "f80_round.h"
#include "x87.h"

static F80 invalid(F80Env *env) {
  env->sw |= X87_IE;
  return f80_indefinite();
}

/* y * k for log2 = k, an integer: exact in binary128. The CPU reports it inexact, and
 * for k < 0 rounds as if the logarithm were a little smaller in magnitude than k. */
static F80 times_integer(Parts y, int32_t k, F80Env *env) {
  Q v = f80_sig_q(y) * k;
  if (k < 0) return f80_from_q_cpu(v, y.exp, -120, env);
  return f80_inexact_anyway(f80_from_q(v, y.exp, Q_EXACT, env), env);
}

/* y * l as the CPU forms it: l truncated to 67 bits, times y rounded once. */
static F80 times_truncated(Parts y, Q l, F80Env *env) {
  int32_t l_exp;
  u128 l_sig = f80_q_truncated(l, 67, &l_exp);
  return f80_times_rounded(y, l < 0, l_sig, l_exp, env);
}

/* log2(e) * 2^67, rounded up to 68 bits: the CPU's constant for FYL2XP1. */
static const u128 LOG2E_68 = (u128)0xB8AA3B295C17F0BBull << 4 | 0xC;

/* LOG2E_68 as the value it stands for, for the steps taken in binary128. */
static Q log2e_68(void) { return ldexpf128((Q)LOG2E_68, -67); }

/* y log2(1 + x) for |x| below 2^-70, where the CPU's other terms (below) vanish: x times
 * LOG2E_68 truncated to 67 bits, times y rounded once (measured: every operand tried
 * down to the denormals), in integers, as x may lie beyond binary128's range. */
static F80 tiny_yl2xp1(Parts x, Parts y, F80Env *env) {
  int32_t e;
  u128 sig = f80_times_constant(x, LOG2E_68, 67, &e);
  return f80_times_rounded(y, x.neg, sig, e, env);
}

/* 2 atanh(q / 2) - q = q w P(w), w = q^2, for |q| <= 2/15 (x in (-1/8, 1/8)) as the
 * CPU's polynomial gives it: P is the minimax polynomial of degree 5 for the relative
 * error of 2 atanh(q / 2) up to w = (2/15)^2 (Remez exchange, coefficients rounded to 64
 * bits). Its error, up to 3e-22 of the logarithm, runs up and down with x as the CPU's
 * logarithm read out to its 67th bit does. */
static Q atanh_rest(Q q) {
  static const Q P[6] = {0x1.5555555555555416p-4Q, 0x1.9999999999c4200cp-7Q,
                         0x1.24924923a07c4c26p-9Q, 0x1.c71c76b6f8210ee6p-12Q,
                         0x1.7456924e2979e8d0p-14Q, 0x1.3f4e524a79a41186p-16Q};
  Q w = q * q;
  return q * w * f80_q_polynomial(P, 6, w);
}

/* log2(1 + x) for 2^-70 <= |x| < 1/8 as the CPU forms it (FYL2XP1, and FYL2X in
 * [7/8, 9/8) from x - 1):
 *   log2(1 + x) = log2(e) * 2 atanh(q / 2),  q = x / V,  V = 1 + x/2 rounded down to 67 bits,
 * from three parts each truncated to the 67-bit grid of the result: |x| times log2(e)
 * rounded up to 68 bits, |x| log2(e) (1/V - 1) (which the rounded V leaves a little off
 * the exact logarithm), and log2(e) (2 atanh(q/2) - q) from the CPU's polynomial. Measured
 * on an Intel Xeon with the CPU's logarithm read out to its 67th bit (y = 1 + a 2^-63
 * moves it past a rounding point by a known amount): every operand tried from 2^-80 to
 * 2^-10, both signs; from there to 2^-7 99.7 %, to 2^-5 99 %, to 1/8 95.5 to 96.7 %. */
static Q small_log2_1p(Q x) {
  Q ax = fabsf128(x);
  /* V on its 67-bit grid: 2^-66 in [1, 2) for x > 0, 2^-67 in [1/2, 1) for x < 0 */
  Q v = x > 0 ? 1 + ldexpf128(floorf128(ldexpf128(x, 65)), -66)
              : 1 - ldexpf128(ceilf128(ldexpf128(-x, 66)), -67);
  Q head = log2e_68() * ax;
  Q division = ax * M_LOG2Ef128 * (1 / v - 1);
  Q rest = fabsf128(atanh_rest(x / v)) * M_LOG2Ef128;
  Q u = ldexpf128(1, ilogbf128(head + division + rest) - 66);
  Q l = (floorf128(head / u) + floorf128(division / u) + floorf128(rest / u)) * u;
  return x < 0 ? -l : l;
}

/* log2(e) 2 atanh(u/2) for |u| < 1/61 as the CPU's polynomial gives it: u times log2(e)
 * rounded up to 68 bits times 1 + w (R1 + R2 w + R3 w^2), w = u^2. Against the exact
 * function its 64-bit rounding shows a bias of up to a quarter of a unit that runs up
 * and down with u as the error of the best (minimax) quadratic in w does; that quadratic
 * for the relative error up to w = 2.65e-4 (Remez exchange, coefficients rounded to 64
 * bits) reproduces the CPU best. */
static Q atanh_polynomial(Q u) {
  static const Q R[4] = {1, 0x1.55555555555c022ep-4Q, 0x1.99999986f0b5f306p-7Q,
                         0x1.2499b31713ee4dfep-9Q};
  return log2e_68() * u * f80_q_polynomial(R, 4, u * u);
}

/* log2 v for v > 0 away from 1, as the CPU forms it (FYL2X, and FYL2XP1 from 1/8 on with
 * v = 1 + x): v = 2^k (1 + m), and a table at the middle B of m's interval of 1/32:
 *   log2 v = k + log2(1 + B) + S,  S = log2(e) * 2 atanh(u / 2),  u = r / V,  r = m - B,
 * with the divisor V = 1 + B + r/2, the quotient u and S each rounded to 64 bits, the sum
 * truncated to 67 bits by the caller. Measured on an Intel Xeon with FYL2XP1's logarithm
 * read out to its 67th bit (95,000 operands next to five B from 9/64 to 31/64): each agrees
 * with S one of the two 64-bit values around it (but for some with r < 0 next to a few
 * other B), and the polynomial above, rounded to nearest, gives the CPU's for 98.5 % (the
 * exact function 95 %). The table serves every v outside [7/8, 9/8), where small_log2_1p
 * takes over. */
static Q log2_away_from_one(Q v) {
  int k = ilogbf128(v);
  Q m = ldexpf128(v, -k) - 1;
  Q b = (floorf128(m * 32) + 0.5Q) / 32, r = m - b;
  Q divisor = f80_q_rounded(1 + b + r / 2, 64), u = f80_q_rounded(r / divisor, 64);
  return k + log2f128(1 + b) + f80_q_rounded(atanh_polynomial(u), 64);
}

F80 f80_yl2x(F80 x, F80 y, F80Env *env) {
  F80 r;
  if (f80_nan_operands(x, y, true, &r, env)) return r;
  F80Class kx = f80_class(x), ky = f80_class(y);
  bool yneg = f80_sign(y);
  Parts px = f80_parts(x);
  bool x_one = px.exp == 0 && px.sig == F80_INT_BIT && !px.neg;
  /* log2 of a negative number, 0 * inf, inf * 0. */
  if ((px.neg && kx != F80_ZERO) || (kx == F80_ZERO && ky == F80_ZERO) ||
      (kx == F80_INF && ky == F80_ZERO) || (x_one && ky == F80_INF))
    return invalid(env);
  if (kx == F80_ZERO) {
    if (ky != F80_INF) env->sw |= X87_ZE;
    return f80_inf(!yneg);
  }
  f80_denormal(env, kx == F80_DENORMAL || ky == F80_DENORMAL);
  if (kx == F80_INF) return f80_inf(yneg);
  /* Now 0 < x < inf: log2 x is negative below 1. */
  bool below_one = px.exp < 0;
  if (ky == F80_INF) return f80_inf(yneg != below_one);
  if (ky == F80_ZERO) return f80_zero(yneg != below_one);
  if (x_one) return f80_zero(yneg); /* exact, in every rounding mode */
  Parts py = f80_parts(y);
  if (px.sig == F80_INT_BIT) return times_integer(py, px.exp, env);
  bool near_one = (px.exp == -1 && px.sig >= 0xE000000000000000ull) ||
                  (px.exp == 0 && px.sig < 0x9000000000000000ull); /* [7/8, 9/8) */
  /* Near 1 the CPU takes log2(1 + (x - 1)) by the steps of FYL2XP1 (measured on an Intel
   * Xeon: 99.2 % of operands there, against 83 % from the exact logarithm; x - 1 is
   * exact and at least 2^-64). Elsewhere its table, truncated below. */
  int saved = f80_q_begin();
  Q l = near_one ? small_log2_1p(f80_to_q(x) - 1) : log2_away_from_one(f80_to_q(x));
  f80_q_end(saved);
  return times_truncated(py, l, env);
}

/* When x + 1 is a power of two 2^k, k (else 0, which x + 1 = 1 cannot be). Only
 * x = 2^k - 1 for 1 <= k <= 64 and x = -(1 - 2^k) for -64 <= k <= -1 qualify: a run of
 * |k| ones at the top of the significand, and the right exponent. */
static int32_t log2_of_x_plus_one(Parts x) {
  int ones = x.sig == ~0ull ? 64 : __builtin_clzll(~x.sig);
  if (x.sig != (ones == 64 ? ~0ull : ~0ull << (64 - ones))) return 0;
  if (!x.neg) return x.exp == ones - 1 ? ones : 0;
  return x.exp == -1 ? -ones : 0;
}

F80 f80_yl2xp1(F80 x, F80 y, F80Env *env) {
  F80 r;
  if (f80_nan_operands(x, y, true, &r, env)) return r;
  F80Class kx = f80_class(x), ky = f80_class(y);
  bool xneg = f80_sign(x), yneg = f80_sign(y);
  if ((kx == F80_INF && (xneg || ky == F80_ZERO)) || (kx == F80_ZERO && ky == F80_INF))
    return invalid(env);
  f80_denormal(env, kx == F80_DENORMAL || ky == F80_DENORMAL);
  if (kx == F80_INF) return f80_inf(yneg);
  /* log2(x + 1) has the sign of x, also where the CPU gives up below. */
  if (kx == F80_ZERO || ky == F80_ZERO) return f80_zero(xneg != yneg);
  if (ky == F80_INF) return f80_inf(xneg != yneg);
  Parts px = f80_parts(x), py = f80_parts(y);
  /* For x <= -1, where the logarithm does not exist, the CPU returns x. */
  if (xneg && px.exp >= 0) return f80_inexact_anyway(x, env);
  int32_t k = log2_of_x_plus_one(px);
  if (k) return times_integer(py, k, env);
  if (px.exp < -70) return tiny_yl2xp1(px, py, env);
  int saved = f80_q_begin();
  /* Below 1/8 the CPU's own steps; from there FYL2X's on 1 + x, both signs (measured:
   * 99.9 % of operands in [1/2, 1) against 99.55 % from the exact logarithm, 99.7 against
   * 97.6 % in [1/8, 1/4)); 1 + x is exact in binary128 up to 2^112, and beyond the 1 is
   * below the 67 bits kept. */
  Q xq = f80_to_q(x);
  Q l = px.exp < -3 ? small_log2_1p(xq) : log2_away_from_one(1 + xq);
  f80_q_end(saved);
  return times_truncated(py, l, env);
}
