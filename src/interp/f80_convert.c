/* f80_convert.c: x87 values to and from float, double and integers, and FRNDINT. */
#include "f80_round.h"

/* Float and double widen exactly; an SNaN stays signaling (the instruction that uses
 * it raises IE), its fraction kept aligned to the top as the CPU's conversion does. */
static F80 widen(bool neg, uint32_t exp, uint64_t frac, unsigned frac_bits, int32_t bias,
                 uint32_t exp_max, uint16_t *de) {
  *de = 0;
  uint64_t top = frac << (63 - frac_bits);
  if (exp == exp_max) return f80_make(neg, F80_EXP_MAX, F80_INT_BIT | top);
  if (exp != 0) return f80_make(neg, (unsigned)((int32_t)exp - bias + F80_BIAS), F80_INT_BIT | top);
  if (frac == 0) return f80_zero(neg);
  *de = X87_DE;
  int lz = __builtin_clzll(top);
  return f80_make(neg, (unsigned)(1 - bias + F80_BIAS - lz), top << lz);
}

F80 f80_from_f32(uint32_t bits, uint16_t *de) {
  return widen(bits >> 31, bits >> 23 & 0xFF, bits & 0x7FFFFF, 23, 127, 0xFF, de);
}

F80 f80_from_f64(uint64_t bits, uint16_t *de) {
  return widen(bits >> 63, (uint32_t)(bits >> 52 & 0x7FF), bits & 0xFFFFFFFFFFFFFull, 52, 1023,
               0x7FF, de);
}

/* A signed 64-bit magnitude, exactly (64 bits fit the significand). */
static F80 from_magnitude(bool neg, uint64_t m) {
  if (m == 0) return f80_zero(neg);
  int lz = __builtin_clzll(m);
  return f80_make(neg, (unsigned)(F80_BIAS + 63 - lz), m << lz);
}

F80 f80_from_i64(int64_t v) {
  return from_magnitude(v < 0, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* FST m32fp/m64fp: rounded under RC into the narrower format. A NaN keeps the top of
 * its fraction and becomes quiet; an unsupported encoding stores the indefinite. */
static uint64_t narrow(F80 a, const Format *f, unsigned exp_bits, F80Env *env) {
  unsigned frac_bits = f->bits - 1;
  uint64_t exp_max = (1ull << exp_bits) - 1, sign = (uint64_t)f80_sign(a) << (frac_bits + exp_bits);
  uint64_t quiet = 1ull << (frac_bits - 1), inf = exp_max << frac_bits;
  switch (f80_class(a)) {
  case F80_ZERO: return sign;
  case F80_INF: return sign | inf;
  case F80_UNSUPPORTED:
    env->sw |= X87_IE;
    return (1ull << (frac_bits + exp_bits)) | inf | quiet;
  case F80_SNAN: env->sw |= X87_IE; /* fall through */
  case F80_QNAN: return sign | inf | quiet | (a.m << 1 >> (64 - frac_bits));
  default: break;
  }
  Unpacked u = f80_unpack(a); /* a denormal operand is not reported for a store */
  Rounded r = f80_round_to(u.neg, u.exp, (u128)u.sig << 64, true, f, env);
  if (r.exp > f->emax) return sign | inf;
  uint64_t frac = r.sig & ((1ull << frac_bits) - 1);
  uint64_t exp = r.sig >> frac_bits ? (uint64_t)(r.exp - F80_BIAS + (int32_t)(exp_max >> 1)) : 0;
  return sign | exp << frac_bits | frac;
}

uint32_t f80_to_f32(F80 a, F80Env *env) { return (uint32_t)narrow(a, &F80_FLOAT, 8, env); }
uint64_t f80_to_f64(F80 a, F80Env *env) { return narrow(a, &F80_DOUBLE, 11, env); }

/* |a| rounded to an integer under RC (or toward zero): the magnitude, or false when it
 * needs more than 64 bits. PE and C1 as the rounding went. */
static bool integer_magnitude(Unpacked u, bool trunc, F80Env *env, uint64_t *out) {
  int32_t point = u.exp - F80_BIAS; /* the weight of the significand's top bit */
  if (point >= 64) return false;
  uint64_t kept, rest; /* rest: the fraction, left-aligned */
  if (point >= 0) {
    kept = u.sig >> (63 - point);
    rest = point == 63 ? 0 : u.sig << (point + 1);
  } else {
    kept = 0;
    rest = point == -1 ? u.sig : 1; /* below 1/2, not zero */
  }
  if (rest) {
    env->sw |= X87_PE;
    int cmp = rest > F80_INT_BIT ? 1 : rest == F80_INT_BIT ? 0 : -1;
    F80Env e = *env;
    if (trunc) e.cw |= 3u << X87_RC_SHIFT;
    if (f80_rounds_up(&e, u.neg, cmp, kept & 1)) {
      env->sw |= X87_C1;
      if (++kept == 0) return false;
    }
  }
  *out = kept;
  return true;
}

int64_t f80_to_int(F80 a, unsigned bits, bool trunc, F80Env *env) {
  int64_t indefinite = (int64_t)(~0ull << (bits - 1));
  F80Class k = f80_class(a);
  if (k == F80_ZERO) return 0;
  if (k == F80_INF || k == F80_QNAN || k == F80_SNAN || k == F80_UNSUPPORTED) {
    env->sw |= X87_IE;
    return indefinite;
  }
  F80Env probe = *env;
  uint64_t mag;
  Unpacked u = f80_unpack(a);
  bool fits = integer_magnitude(u, trunc, &probe, &mag);
  uint64_t limit = (1ull << (bits - 1)) - (u.neg ? 0 : 1);
  if (!fits || mag > limit) {
    env->sw |= X87_IE; /* the rounding's PE and C1 are not reported */
    return indefinite;
  }
  env->sw = probe.sw;
  return u.neg ? (int64_t)-mag : (int64_t)mag;
}

F80 f80_round_int(F80 a, F80Env *env) {
  F80 r;
  if (f80_nan_operands(a, a, false, &r, env)) return r;
  F80Class k = f80_class(a);
  if (k == F80_ZERO || k == F80_INF) return a;
  f80_denormal(env, k == F80_DENORMAL);
  Unpacked u = f80_unpack(a);
  if (u.exp - F80_BIAS >= 63) return a;
  uint64_t mag;
  integer_magnitude(u, false, env, &mag);
  return from_magnitude(u.neg, mag);
}
