/* f80_scale.c: the exponent instructions FSCALE and FXTRACT, and the partial
 * remainders FPREM and FPREM1 (exact: a remainder is never rounded). */
#include "f80_round.h"

F80 f80_scale(F80 a, F80 b, F80Env *env) {
  F80 r;
  if (f80_nan_operands(a, b, true, &r, env)) return r;
  F80Class ka = f80_class(a), kb = f80_class(b);
  bool up = !f80_sign(b);
  if (kb == F80_INF) {
    if ((up && ka == F80_ZERO) || (!up && ka == F80_INF)) {
      env->sw |= X87_IE;
      return f80_indefinite();
    }
    f80_denormal(env, ka == F80_DENORMAL);
    if (ka == F80_ZERO || ka == F80_INF) return a;
    return up ? f80_inf(f80_sign(a)) : f80_zero(f80_sign(a));
  }
  f80_denormal(env, ka == F80_DENORMAL || kb == F80_DENORMAL);
  if (ka == F80_ZERO || ka == F80_INF || kb == F80_ZERO) return f80_canonical(a);
  /* ST(1) truncated to an integer; beyond +-2^17 every result over- or underflows. */
  Unpacked ub = f80_unpack(b);
  int32_t point = ub.exp - F80_BIAS;
  int32_t n = point > 16 ? 1 << 17 : point < 0 ? 0 : (int32_t)(ub.sig >> (63 - point));
  if (ub.neg) n = -n;
  Unpacked ua = f80_unpack(a);
  return f80_round_pack(ua.neg, ua.exp + n, (u128)ua.sig << 64, true, 64, env);
}

F80 f80_extract(F80 a, F80 *sig, F80Env *env) {
  F80 r;
  if (f80_nan_operands(a, a, false, &r, env)) return *sig = r;
  switch (f80_class(a)) {
  case F80_ZERO:
    env->sw |= X87_ZE;
    *sig = a;
    return f80_inf(true);
  case F80_INF: *sig = a; return f80_inf(false);
  default: break;
  }
  f80_denormal(env, f80_class(a) == F80_DENORMAL);
  Unpacked u = f80_unpack(a);
  *sig = f80_make(u.neg, F80_BIAS, u.sig);
  int32_t e = u.exp - F80_BIAS;
  F80 exp = f80_from_i64(e);
  return exp;
}

/* FPREM and FPREM1 finish only when the exponents differ by less than 64; otherwise
 * they reduce by ST(1) * 2^(32 * (d / 32) - 32), the CPU's partial step, which keeps the
 * low quotient bits those of the whole quotient, and report C2 for software to loop. */
enum { PREM_PARTIAL_BITS = 32 };

F80 f80_rem(F80 a, F80 b, bool nearest, unsigned *quotient, bool *partial, F80Env *env) {
  F80 r;
  *quotient = 0;
  *partial = false;
  if (f80_nan_operands(a, b, true, &r, env)) return r;
  F80Class ka = f80_class(a), kb = f80_class(b);
  if (ka == F80_INF || kb == F80_ZERO) {
    env->sw |= X87_IE;
    return f80_indefinite();
  }
  f80_denormal(env, ka == F80_DENORMAL || kb == F80_DENORMAL);
  if (kb == F80_INF || ka == F80_ZERO) return f80_canonical(a);
  Unpacked ua = f80_unpack(a), ub = f80_unpack(b);
  int32_t d = ua.exp - ub.exp;
  if (d >= 64) {
    *partial = true;
    ub.exp += d / PREM_PARTIAL_BITS * PREM_PARTIAL_BITS - PREM_PARTIAL_BITS;
    d = ua.exp - ub.exp;
    nearest = false;
  }
  if (d < -1) /* a itself; a denormal is still an underflow for an unmasked UE */
    return f80_round_pack(ua.neg, ua.exp, (u128)ua.sig << 64, true, 64, env);
  /* In units of 2^(ub.exp - 1 - BIAS - 63): a = n, b = den; q = n / den. */
  u128 n = (u128)ua.sig << (d + 1), den = (u128)ub.sig << 1;
  uint64_t q = (uint64_t)(n / den);
  u128 rem = n % den;
  bool neg = ua.neg;
  if (nearest && (2 * rem > den || (2 * rem == den && (q & 1)))) {
    rem = den - rem;
    q++;
    neg = !neg;
  }
  if (!*partial) *quotient = q & 7;
  if (rem == 0) return f80_zero(ua.neg);
  return f80_round_pack(neg, ub.exp - 1 + 64, rem, true, 64, env);
}
