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

/* The top `bits` bits of sig (normalized, a sticky bit below unless exact), rounded
 * under RC: the kept bits, whether anything was dropped, and whether they rounded up. */
typedef struct Kept {
  uint64_t sig;
  bool inexact, up;
} Kept;

static Kept keep_bits(bool neg, u128 sig, bool exact, unsigned bits, const F80Env *env) {
  unsigned drop = 128 - bits;
  u128 rest = sig & (((u128)1 << drop) - 1), half = (u128)1 << (drop - 1);
  Kept k = {(uint64_t)(sig >> drop), rest != 0 || !exact, false};
  if (k.inexact) {
    int cmp = rest > half || (rest == half && !exact) ? 1 : rest == half ? 0 : -1;
    k.up = f80_rounds_up(env, neg, cmp, k.sig & 1);
  }
  return k;
}

/* Tininess is detected after rounding, as if the exponent range were unbounded: a
 * value just below the smallest normal that rounds up to it is not tiny. */
static bool tiny_after_rounding(bool neg, int32_t exp, u128 sig, bool exact, const Format *f,
                                const F80Env *env) {
  if (exp != f->emin - 1) return exp < f->emin;
  Kept k = keep_bits(neg, sig, exact, f->bits, env);
  return !k.up || k.sig != ~0ull >> (64 - f->bits);
}

/* A result beyond the largest finite value, masked: infinity, or the largest finite
 * value when rounding away from it. */
static Rounded overflowed(bool neg, const Format *f, F80Env *env) {
  unsigned rc = f80_rc(env);
  bool to_inf = rc == 0 || (rc == 1 && neg) || (rc == 2 && !neg);
  env->sw = (uint16_t)((env->sw & ~X87_C1) | X87_OE | X87_PE | (to_inf ? X87_C1 : 0));
  if (to_inf) return (Rounded){neg, f->emax + 1, 1ull << (f->bits - 1)};
  return (Rounded){neg, f->emax, ~0ull >> (64 - f->bits)};
}

Rounded f80_round_to(bool neg, int32_t exp, u128 sig, bool exact, const Format *f,
                     F80Env *env) {
  if (sig == 0) return (Rounded){neg, f->emin, 0};
  int lz = f80_clz128(sig);
  sig <<= lz;
  exp -= lz;
  /* Now the leading bit weighs 2^(exp - F80_BIAS). */
  bool tiny = exp < f->emin;
  bool ue_unmasked = f->wraps && !(env->cw & X87_UE), oe_unmasked = f->wraps && !(env->cw & X87_OE);
  /* The unmasked responses wrap the exponent into range. A result too far out even for
   * that (only FSCALE's can be) is an infinity or a zero, whatever the rounding. */
  if (tiny && ue_unmasked && exp + F80_WRAP < f->emin) {
    env->sw |= X87_UE | X87_PE;
    return (Rounded){neg, f->emin, 0};
  }
  if (exp > f->emax && oe_unmasked && exp - F80_WRAP > f->emax) {
    env->sw |= X87_OE | X87_PE | X87_C1;
    return (Rounded){neg, f->emax + 1, 1ull << (f->bits - 1)};
  }
  /* Masked, a tiny result is a denormal, rounded at the smallest normal's last place,
   * and an underflow when also inexact. */
  bool underflow = false;
  if (tiny && ue_unmasked) {
    exp += F80_WRAP;
    env->sw |= X87_UE; /* reported even when exact */
  } else if (tiny) {
    underflow = tiny_after_rounding(neg, exp, sig, exact, f, env);
    unsigned shift = (unsigned)(f->emin - exp);
    if (shift >= 128 || sig << (128 - shift)) exact = false;
    sig = shift >= 128 ? 0 : sig >> shift;
    exp = f->emin;
  }
  Kept k = keep_bits(neg, sig, exact, f->bits, env);
  if (k.inexact) env->sw |= (uint16_t)(X87_PE | (underflow ? X87_UE : 0));
  if (k.up) {
    env->sw |= X87_C1;
    bool carry = k.sig == ~0ull >> (64 - f->bits); /* up to the next power of two */
    k.sig = carry ? 1ull << (f->bits - 1) : k.sig + 1;
    exp += carry;
  }
  if (exp > f->emax) {
    if (!oe_unmasked) return overflowed(neg, f, env);
    exp -= F80_WRAP;
    env->sw |= X87_OE;
  }
  return (Rounded){neg, exp, k.sig};
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
