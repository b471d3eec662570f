/* f80_round.h: what the f80 files share: unpacked values, and rounding to any of the
 * formats the x87 produces (its registers under each precision control, float and
 * double in memory). */
#ifndef X64EMU_F80_ROUND_H
#define X64EMU_F80_ROUND_H

#include "f80.h"
#include "x87.h"

typedef unsigned __int128 u128;

/* A finite non-zero value as sig * 2^(exp - F80_BIAS - 63), sig normalized (bit 63 set);
 * denormals and pseudo-denormals are normalized, so exp may be 0 or below. */
typedef struct Unpacked {
  bool neg;
  int32_t exp;
  uint64_t sig;
} Unpacked;
Unpacked f80_unpack(F80 a);

/* A destination format, its exponents on the F80 biased scale. `wraps`: a register,
 * which takes the CPU's unmasked overflow and underflow response (the exponent wrapped
 * by F80_WRAP); memory formats leave that to the caller, which stops the store. */
typedef struct Format {
  unsigned bits;
  int32_t emin, emax;
  bool wraps;
} Format;

extern const Format F80_FLOAT, F80_DOUBLE;

/* Rounds sig * 2^(exp - F80_BIAS - 127) to the format (f80_round_pack's contract).
 * A rounded result: sig has `bits` bits, its top bit set unless the value is a
 * denormal (exp is then emin) or zero; exp > emax is an infinity. */
typedef struct Rounded {
  bool neg;
  int32_t exp;
  uint64_t sig;
} Rounded;
Rounded f80_round_to(bool neg, int32_t exp, u128 sig, bool exact, const Format *fmt,
                     F80Env *env);

/* The rounding control's answer to "does this inexact magnitude go up?", given whether
 * the dropped part is above, at or below half (cmp > 0, 0, < 0) and the kept LSB. */
bool f80_rounds_up(const F80Env *env, bool neg, int cmp, bool lsb_odd);

static inline unsigned f80_rc(const F80Env *env) { return (env->cw >> X87_RC_SHIFT) & 3; }

/* The CPU reports a denormal operand only for an operation that goes ahead: not with
 * an invalid operation or a division by zero. */
static inline void f80_denormal(F80Env *env, bool any) {
  if (any && !(env->sw & (X87_IE | X87_ZE))) env->sw |= X87_DE;
}

/* A value passed through unchanged: a pseudo-denormal takes its real exponent, 1. */
static inline F80 f80_canonical(F80 a) {
  if (f80_exp(a) == 0 && (a.m >> 63)) a.se |= 1;
  return a;
}

static inline int f80_clz128(u128 v) {
  uint64_t hi = (uint64_t)(v >> 64);
  return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)v);
}

#endif
