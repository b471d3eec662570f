/* f80_arith.c: FADD, FSUB, FMUL, FDIV, FSQRT and the compares in integer arithmetic,
 * rounded once from the exact result (a sticky bit stands for what lies below). */
#include "f80_round.h"

static bool is_denormal(F80 a) { return f80_class(a) == F80_DENORMAL; }

static F80 invalid(F80Env *env) {
  env->sw |= X87_IE;
  return f80_indefinite();
}

/* An exact zero result: positive but when rounding down. */
static F80 exact_zero(const F80Env *env) { return f80_zero(f80_rc(env) == 1); }

static F80 add(F80 a, F80 b, bool neg_b, F80Env *env) {
  F80Class ka = f80_class(a), kb = f80_class(b);
  bool sa = f80_sign(a), sb = f80_sign(b) ^ neg_b;
  if (ka == F80_INF || kb == F80_INF) {
    if (ka == F80_INF && kb == F80_INF && sa != sb) return invalid(env);
    return f80_inf(ka == F80_INF ? sa : sb);
  }
  if (ka == F80_ZERO && kb == F80_ZERO) return sa == sb ? f80_zero(sa) : exact_zero(env);
  if (kb == F80_ZERO || ka == F80_ZERO) {
    /* x + 0 is x, rounded to the precision in force (a denormal stays as it is). */
    F80 x = ka == F80_ZERO ? b : a;
    Unpacked u = f80_unpack(x);
    return f80_round_pack(ka == F80_ZERO ? sb : sa, u.exp, (u128)u.sig << 64, true,
                          f80_precision(env), env);
  }
  Unpacked ua = f80_unpack(a), ub = f80_unpack(b);
  ua.neg = sa;
  ub.neg = sb;
  if (ub.exp > ua.exp || (ub.exp == ua.exp && ub.sig > ua.sig)) {
    Unpacked t = ua;
    ua = ub;
    ub = t;
  }
  /* |a| >= |b|: a's significand at bits 125..62, b shifted right, lost bits jammed. */
  u128 x = (u128)ua.sig << 62, y = (u128)ub.sig << 62;
  uint32_t d = (uint32_t)(ua.exp - ub.exp);
  if (d >= 128) y = 1;
  else if (d) y = (y >> d) | ((y << (128 - d)) != 0);
  u128 r = ua.neg == ub.neg ? x + y : x - y;
  if (r == 0) return exact_zero(env);
  return f80_round_pack(ua.neg, ua.exp + 2, r, true, f80_precision(env), env);
}

static F80 mul(F80 a, F80 b, F80Env *env) {
  F80Class ka = f80_class(a), kb = f80_class(b);
  bool neg = f80_sign(a) ^ f80_sign(b);
  if (ka == F80_INF || kb == F80_INF) {
    if (ka == F80_ZERO || kb == F80_ZERO) return invalid(env);
    return f80_inf(neg);
  }
  if (ka == F80_ZERO || kb == F80_ZERO) return f80_zero(neg);
  Unpacked ua = f80_unpack(a), ub = f80_unpack(b);
  u128 p = (u128)ua.sig * ub.sig;
  return f80_round_pack(neg, ua.exp + ub.exp - F80_BIAS + 1, p, true, f80_precision(env), env);
}

static F80 div(F80 a, F80 b, F80Env *env) {
  F80Class ka = f80_class(a), kb = f80_class(b);
  bool neg = f80_sign(a) ^ f80_sign(b);
  if (ka == F80_INF) return kb == F80_INF ? invalid(env) : f80_inf(neg);
  if (kb == F80_INF) return f80_zero(neg);
  if (kb == F80_ZERO) {
    if (ka == F80_ZERO) return invalid(env);
    env->sw |= X87_ZE;
    return f80_inf(neg);
  }
  if (ka == F80_ZERO) return f80_zero(neg);
  Unpacked ua = f80_unpack(a), ub = f80_unpack(b);
  /* Two 64-bit quotient digits: the first from a's significand placed so that it has
   * exactly 64 bits, the second from the remainder. */
  unsigned s = ua.sig >= ub.sig ? 63 : 64;
  u128 n = (u128)ua.sig << s;
  uint64_t q1 = (uint64_t)(n / ub.sig);
  u128 rem = (n % ub.sig) << 64;
  uint64_t q2 = (uint64_t)(rem / ub.sig);
  bool exact = rem % ub.sig == 0;
  u128 q = (u128)q1 << 64 | q2;
  return f80_round_pack(neg, ua.exp - ub.exp + F80_BIAS + 63 - (int32_t)s, q, exact,
                        f80_precision(env), env);
}

F80 f80_arith(F80Op op, F80 a, F80 b, uint16_t de, F80Env *env) {
  F80 r;
  if (f80_nan_operands(a, b, true, &r, env)) return r;
  switch (op) {
  case F80_ADD: r = add(a, b, false, env); break;
  case F80_SUB: r = add(a, b, true, env); break;
  case F80_MUL: r = mul(a, b, env); break;
  default: r = div(a, b, env); break;
  }
  f80_denormal(env, de || is_denormal(a) || is_denormal(b));
  return r;
}

/* The integer square root of n, n >= 2^126: the 64-bit root and whether a remainder
 * is left, and whether the next bit of the root is 1. */
static uint64_t isqrt128(u128 n, bool *half_up, bool *inexact) {
  /* A double's estimate (clamped into the root's range: rounding may carry it to 2^64),
   * Newton's steps from it, then the last unit by comparison. */
  double est = __builtin_sqrt((double)n);
  uint64_t r = est >= 0x1p64 ? ~0ull : est < 0x1p63 ? 1ull << 63 : (uint64_t)est;
  for (int i = 0; i < 2; i++) {
    u128 next = ((u128)r + n / r) >> 1;
    r = next > ~0ull ? ~0ull : (uint64_t)next;
  }
  while ((u128)r * r > n) r--;
  while (r != ~0ull && (u128)(r + 1) * (r + 1) <= n) r++;
  u128 rem = n - (u128)r * r;
  /* (r + 1/2)^2 = r^2 + r + 1/4 <= n exactly when rem > r (never equal: not exact). */
  *half_up = rem > r;
  *inexact = rem != 0;
  return r;
}

F80 f80_sqrt(F80 a, F80Env *env) {
  F80 r;
  if (f80_nan_operands(a, a, false, &r, env)) return r;
  F80Class k = f80_class(a);
  if (k == F80_ZERO) return a;
  if (f80_sign(a)) return invalid(env);
  f80_denormal(env, k == F80_DENORMAL);
  if (k == F80_INF) return a;
  Unpacked u = f80_unpack(a);
  /* a = sig * 2^e with e = exp - BIAS - 63; shift by s so that e - s is even. */
  int32_t e = u.exp - F80_BIAS - 63;
  unsigned s = (e - 63) % 2 == 0 ? 63 : 64;
  bool half_up, inexact;
  uint64_t root = isqrt128((u128)u.sig << s, &half_up, &inexact);
  u128 sig = (u128)root << 64 | (half_up ? 1ull << 63 : 0);
  return f80_round_pack(false, (e - (int32_t)s) / 2 + F80_BIAS + 63, sig, !inexact,
                        f80_precision(env), env);
}

uint16_t f80_compare(F80 a, F80 b, bool quiet, uint16_t de, F80Env *env) {
  F80Class ka = f80_class(a), kb = f80_class(b);
  bool nan = ka == F80_QNAN || ka == F80_SNAN || kb == F80_QNAN || kb == F80_SNAN;
  if (nan || ka == F80_UNSUPPORTED || kb == F80_UNSUPPORTED) {
    if (!quiet || !(ka == F80_QNAN || kb == F80_QNAN) || ka == F80_SNAN || kb == F80_SNAN ||
        ka == F80_UNSUPPORTED || kb == F80_UNSUPPORTED)
      env->sw |= X87_IE;
    return X87_C0 | X87_C2 | X87_C3;
  }
  f80_denormal(env, de || ka == F80_DENORMAL || kb == F80_DENORMAL);
  if (ka == F80_ZERO && kb == F80_ZERO) return X87_C3;
  bool sa = f80_sign(a), sb = f80_sign(b);
  if (sa != sb) return ka == F80_ZERO && kb == F80_ZERO ? X87_C3 : sa ? X87_C0 : 0;
  /* Same sign: order the magnitudes (zero and infinity included) and flip for negatives. */
  Unpacked ua = ka == F80_ZERO ? (Unpacked){sa, -100000, 0} : f80_unpack(a);
  Unpacked ub = kb == F80_ZERO ? (Unpacked){sb, -100000, 0} : f80_unpack(b);
  if (ua.exp == ub.exp && ua.sig == ub.sig) return X87_C3;
  bool less = ua.exp < ub.exp || (ua.exp == ub.exp && ua.sig < ub.sig);
  return less != sa ? X87_C0 : 0;
}
