/* f80_round.c: classifying, unpacking and rounding x87 values; the NaN rules. */
#include "f80_round.h"

const Format F80_FLOAT = {24, F80_BIAS - 126, F80_BIAS + 127, false};
const Format F80_DOUBLE = {53, F80_BIAS - 1022, F80_BIAS + 1023, false};

F80Class f80_class(F80 a) {
  unsigned e = f80_exp(a);
  bool j = a.m >> 63;
  if (e == 0) return a.m == 0 ? F80_ZERO : F80_DENORMAL; /* pseudo-denormals too */
  if (!j) return F80_UNSUPPORTED;                          /* unnormals, pseudo-NaN/inf */
  if (e != F80_EXP_MAX) return F80_NORMAL;
  if (!(a.m << 1)) return F80_INF;
  return a.m & F80_QUIET_BIT ? F80_QNAN : F80_SNAN;
}

F80 f80_indefinite(void) { return f80_make(true, F80_EXP_MAX, 3ull << 62); }
F80 f80_inf(bool neg) { return f80_make(neg, F80_EXP_MAX, F80_INT_BIT); }
F80 f80_zero(bool neg) { return f80_make(neg, 0, 0); }

Unpacked f80_unpack(F80 a) {
  Unpacked u = {f80_sign(a), (int32_t)f80_exp(a), a.m};
  if (u.exp == 0) {
    /* A denormal has the exponent of the smallest normal, 1, without the integer bit. */
    int lz = __builtin_clzll(u.sig);
    u.sig <<= lz;
    u.exp = 1 - lz;
  }
  return u;
}

/* The x87's NaN operand rules: an SNaN raises IE; of two NaNs a quiet one beats a
 * signaling one, then the larger significand wins, then the positive one; the result
 * is quiet. An unsupported encoding is an invalid operand: IE and the indefinite. */
bool f80_nan_operands(F80 a, F80 b, bool two, F80 *r, F80Env *env) {
  F80Class ka = f80_class(a), kb = two ? f80_class(b) : F80_ZERO;
  if (ka == F80_UNSUPPORTED || kb == F80_UNSUPPORTED) {
    env->sw |= X87_IE;
    *r = f80_indefinite();
    return true;
  }
  bool na = ka == F80_QNAN || ka == F80_SNAN, nb = kb == F80_QNAN || kb == F80_SNAN;
  if (!na && !nb) return false;
  if (ka == F80_SNAN || kb == F80_SNAN) env->sw |= X87_IE;
  if (na && nb) {
    bool qa = ka == F80_QNAN, qb = kb == F80_QNAN;
    uint64_t ma = a.m | F80_QUIET_BIT, mb = b.m | F80_QUIET_BIT;
    if (qa != qb) *r = qa ? a : b;
    else if (ma != mb) *r = mb > ma ? b : a;
    else *r = f80_sign(a) ? b : a;
  } else {
    *r = na ? a : b;
  }
  r->m |= F80_QUIET_BIT;
  return true;
}

bool f80_rounds_up(const F80Env *env, bool neg, int cmp, bool lsb_odd) {
  switch (f80_rc(env)) {
  case 0: return cmp > 0 || (cmp == 0 && lsb_odd);
  case 1: return neg;
  case 2: return !neg;
  default: return false;
  }
}

/* Tininess is detected after rounding, as if the exponent range were unbounded. */
static bool tiny_after_rounding(bool neg, int32_t exp, u128 sig, bool exact, const Format *f,
                                const F80Env *env) {
  if (exp < f->emin - 1) return true;
  if (exp >= f->emin) return false;
  unsigned drop = 128 - f->bits;
  u128 rest = sig & (((u128)1 << drop) - 1), half = (u128)1 << (drop - 1);
  if (rest == 0 && exact) return true;
  int cmp = rest > half || (rest == half && !exact) ? 1 : rest == half ? 0 : -1;
  u128 kept = sig >> drop;
  if (!f80_rounds_up(env, neg, cmp, kept & 1)) return true;
  return (kept + 1) >> f->bits == 0; /* no carry into the next binade: still tiny */
}

Rounded f80_round_to(bool neg, int32_t exp, u128 sig, bool exact, const Format *f,
                     F80Env *env) {
  Rounded r = {neg, f->emin, 0};
  if (sig == 0) {
    if (!exact) env->sw |= X87_PE | X87_UE; /* cannot happen for the callers' values */
    return r;
  }
  int lz = f80_clz128(sig);
  sig <<= lz;
  exp -= lz;
  /* Now the leading bit weighs 2^(exp - F80_BIAS). */
  bool tiny = exp < f->emin;
  /* The unmasked responses wrap the exponent into range. A result too far out even for
   * that (only FSCALE's can be) is an infinity or a zero, whatever the rounding. */
  if (f->wraps && tiny && !(env->cw & X87_UE) && exp + F80_WRAP < f->emin) {
    env->sw |= X87_UE | X87_PE;
    return r;
  }
  if (f->wraps && exp > f->emax && !(env->cw & X87_OE) && exp - F80_WRAP > f->emax) {
    env->sw |= X87_OE | X87_PE | X87_C1;
    r.exp = f->emax + 1;
    r.sig = 1ull << (f->bits - 1);
    return r;
  }
  bool wrap_under = tiny && f->wraps && !(env->cw & X87_UE);
  bool tiny_after = tiny && tiny_after_rounding(neg, exp, sig, exact, f, env);
  if (wrap_under) {
    exp += F80_WRAP;
    env->sw |= X87_UE;
  } else if (tiny) {
    unsigned shift = (unsigned)(f->emin - exp);
    if (shift >= 128) {
      exact = false;
      sig = 0;
    } else {
      if (sig << (128 - shift)) exact = false;
      sig >>= shift;
    }
    exp = f->emin;
  }
  unsigned drop = 128 - f->bits;
  u128 rest = sig & (((u128)1 << drop) - 1), half = (u128)1 << (drop - 1);
  uint64_t kept = (uint64_t)(sig >> drop);
  bool inexact = rest != 0 || !exact;
  if (inexact) {
    int cmp = rest > half || (rest == half && !exact) ? 1 : rest == half ? 0 : -1;
    env->sw |= X87_PE;
    if (tiny_after && !wrap_under) env->sw |= X87_UE;
    if (f80_rounds_up(env, neg, cmp, kept & 1)) {
      env->sw |= X87_C1;
      kept++;
      if (kept == 1ull << (f->bits - 1) << 1) { /* a carry out: the next power of two */
        kept = 1ull << (f->bits - 1);
        exp++;
      }
    }
  } else if (tiny && !(env->cw & X87_UE)) {
    env->sw |= X87_UE; /* unmasked underflow is reported even when exact */
  }
  if (exp > f->emax) {
    if (f->wraps && !(env->cw & X87_OE)) {
      exp -= F80_WRAP;
      env->sw |= X87_OE;
    } else {
      env->sw |= X87_OE | X87_PE;
      unsigned rc = f80_rc(env);
      bool to_inf = rc == 0 || (rc == 1 && neg) || (rc == 2 && !neg);
      env->sw = (uint16_t)((env->sw & ~X87_C1) | (to_inf ? X87_C1 : 0));
      r.exp = to_inf ? f->emax + 1 : f->emax;
      r.sig = to_inf ? 1ull << (f->bits - 1) : (f->bits == 64 ? ~0ull : (1ull << f->bits) - 1);
      return r;
    }
  }
  r.exp = exp;
  r.sig = kept;
  return r;
}

static const Format F80_REGISTER[4] = {
    {24, 1, F80_EXP_MAX - 1, true}, {64, 1, F80_EXP_MAX - 1, true}, /* 1 is reserved: 64 */
    {53, 1, F80_EXP_MAX - 1, true}, {64, 1, F80_EXP_MAX - 1, true},
};

unsigned f80_precision(const F80Env *env) {
  return F80_REGISTER[(env->cw >> X87_PC_SHIFT) & 3].bits;
}

F80 f80_round_pack(bool neg, int32_t exp, u128 sig, bool exact, unsigned bits, F80Env *env) {
  const Format *f = &F80_REGISTER[bits == 24 ? 0 : bits == 53 ? 2 : 3];
  Rounded r = f80_round_to(neg, exp, sig, exact, f, env);
  if (r.exp > f->emax) return f80_inf(neg);
  uint64_t m = r.sig << (64 - f->bits);
  return f80_make(neg, m >> 63 ? (unsigned)r.exp : 0, m);
}
