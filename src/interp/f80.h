/* f80.h: x87 80-bit extended arithmetic in integers, for the portable x87 tier: the
 * CPU's results bit for bit (rounding under RC and PC, C1, the exception flags, the
 * masked and unmasked responses, denormals and the unsupported encodings) on any host,
 * independent of what the host's long double is.
 *
 * Values are the register image: 64-bit significand with its explicit integer bit, and
 * sign and biased exponent in one 16-bit word, as the 10 bytes in memory hold them. */
#ifndef X64EMU_F80_H
#define X64EMU_F80_H

#include <stdbool.h>
#include <stdint.h>

typedef struct F80 {
  uint64_t m;  /* significand, bit 63 the explicit integer bit */
  uint16_t se; /* bit 15 sign, bits 0-14 biased exponent */
} F80;

enum { F80_BIAS = 16383, F80_EXP_MAX = 0x7FFF, F80_WRAP = 24576 };
#define F80_INT_BIT (1ull << 63)
#define F80_QUIET_BIT (1ull << 62)

/* One operation's environment: the guest's control word in, what happened out.
 * `sw` collects status word bits (x87.h): exception flags and C1 ("rounded up"). */
typedef struct F80Env {
  uint16_t cw; /* the guest's control word: masks, precision and rounding control */
  uint16_t sw;
} F80Env;

static inline F80Env f80_env(uint16_t cw) { return (F80Env){cw, 0}; }

static inline bool f80_sign(F80 a) { return a.se >> 15; }
static inline unsigned f80_exp(F80 a) { return a.se & F80_EXP_MAX; }
static inline F80 f80_make(bool neg, unsigned exp, uint64_t m) {
  return (F80){m, (uint16_t)((neg ? 0x8000u : 0) | exp)};
}

/* Classes, as FXAM tells them apart; the unsupported encodings (unnormals, pseudo-NaNs
 * and pseudo-infinities) are invalid operands for every arithmetic instruction. */
typedef enum {
  F80_ZERO, F80_DENORMAL, F80_NORMAL, F80_INF, F80_QNAN, F80_SNAN, F80_UNSUPPORTED
} F80Class;
F80Class f80_class(F80 a);
static inline bool f80_is_nan(F80 a) {
  F80Class k = f80_class(a);
  return k == F80_QNAN || k == F80_SNAN;
}

F80 f80_indefinite(void);
F80 f80_inf(bool neg);
F80 f80_zero(bool neg);

/* Rounds sig * 2^(exp - F80_BIAS - 127) (sig any 128-bit value; the result's top bit
 * need not be set) to `bits` significant bits (24, 53 or 64) under the environment's
 * rounding control, with the x87's overflow, underflow and precision rules. `exact`
 * false says the value lies strictly between sig and sig + 1 (a sticky bit below). */
F80 f80_round_pack(bool neg, int32_t exp, unsigned __int128 sig, bool exact, unsigned bits,
                   F80Env *env);
/* The significand width precision control gives the basic arithmetic. */
unsigned f80_precision(const F80Env *env);

/* The basic arithmetic: a op b rounded under the environment (precision control
 * included). `de` is X87_DE when the caller's operand was a denormal in a narrower
 * format (a float or double widened on load): the CPU reports it for the operand, not
 * for the widened value. */
typedef enum { F80_ADD, F80_SUB, F80_MUL, F80_DIV } F80Op;
F80 f80_arith(F80Op op, F80 a, F80 b, uint16_t de, F80Env *env);
F80 f80_sqrt(F80 a, F80Env *env);

/* Compares: returns C0/C2/C3 as FCOM sets them; quiet false raises IE for any NaN. */
uint16_t f80_compare(F80 a, F80 b, bool quiet, uint16_t de, F80Env *env);

/* Conversions. Loads are exact (an SNaN is quieted with IE); stores round under RC. */
F80 f80_from_f32(uint32_t bits, uint16_t *de);
F80 f80_from_f64(uint64_t bits, uint16_t *de);
F80 f80_from_i64(int64_t v);
uint32_t f80_to_f32(F80 a, F80Env *env);
uint64_t f80_to_f64(F80 a, F80Env *env);
/* FIST (trunc false) and FISTTP: the integer if it fits in `bits` bits, else IE and
 * the integer indefinite (the most negative value). */
int64_t f80_to_int(F80 a, unsigned bits, bool trunc, F80Env *env);

/* FRNDINT, FSCALE, FXTRACT (*sig = the significand, returns the exponent),
 * FPREM/FPREM1 (*quotient = the quotient's low three bits, *partial = C2). */
F80 f80_round_int(F80 a, F80Env *env);
F80 f80_scale(F80 a, F80 b, F80Env *env);
F80 f80_extract(F80 a, F80 *sig, F80Env *env);
F80 f80_rem(F80 a, F80 b, bool nearest, unsigned *quotient, bool *partial, F80Env *env);

/* The result of an operation on NaN operands, or on an unsupported or otherwise
 * invalid operand: true, with *r set and IE raised as the CPU does, when a or (when
 * `two`) b is a NaN or unsupported. */
bool f80_nan_operands(F80 a, F80 b, bool two, F80 *r, F80Env *env);

#endif
