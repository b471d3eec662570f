/* f80_trans.h: the x87 transcendental instructions on 80-bit values, for the portable
 * x87 tier: the same results, exception flags and C1 on every host.
 *
 * The CPU's microcode is not correctly rounded: it holds its constants and intermediate
 * results in 64, 67 and 68 bits. Where its steps are known (measured on an Intel Xeon, the
 * same bits for every operand or nearly), they are taken here exactly, the functions of
 * those intermediate values evaluated in binary128 by the C library's _Float128 functions
 * or by the CPU's own polynomials, and rounded once: the sine and cosine of a reduced
 * argument below 1/4 (polynomials in a^2, in 64 and 67 bits, split in two halves for FSIN
 * and FCOS) and from 1/4 on (a table of sines and cosines in 67 bits, the correction to it
 * in 64 and 67), FPTAN (FSINCOS's sine over its cosine, each truncated to 67 bits), F2XM1
 * below 1/4 (t = x * ln2 in 67 bits, from a 68-bit ln2, plus e^t - 1 - t from t and t
 * rounded to 64 bits; below 2^-68 the product itself) and from 1/4 on (a table of 2^B - 1
 * in 67 bits), FYL2XP1 below 1/8 and FYL2X in [7/8, 9/8) (log2(e) 2 atanh(q/2), q =
 * x / (1 + x/2) with the divisor in 67 bits, in three parts each truncated to 67 bits, the
 * atanh from the CPU's polynomial), FYL2X elsewhere and FYL2XP1 from 1/8 on (a table of logarithms at the
 * middles of intervals of 1/32 of the significand plus the atanh of a quotient, divisor,
 * quotient and that atanh, from the CPU's polynomial, in 64 bits, truncated to 67 bits,
 * times y), FPATAN (a table of arctangents in 67 bits, the quotient or the correction in
 * 67, the CPU's 66-bit pi). Where a step is known only in part (F2XM1's product after its
 * table) the nearest choice is taken. Elsewhere the result is the exact function
 * (after the CPU's own argument reduction for the trigonometric ones, by its 66-bit pi)
 * rounded to 64 bits; there the last bit differs from the CPU's for up to a few percent of
 * operands (test_f80_trans.c measures how often). The special operands, the flags and the
 * CPU's shortcuts (tiny arguments, operands outside the documented domains) are the CPU's
 * exactly.
 *
 * Precision control does not apply: these always round to 64 bits. An unmasked IE, DE
 * or ZE in env->sw tells the caller to leave the registers alone, as the CPU does. */
#ifndef X64EMU_F80_TRANS_H
#define X64EMU_F80_TRANS_H

#include <stdbool.h>

#include "f80.h"

/* FSIN, FCOS, FSINCOS, FPTAN: *out_of_range (C2) is set for |x| >= 2^63, and then
 * nothing else happens: the caller keeps ST(0) and the stack as they were. FPTAN's
 * pushed 1.0 is the caller's; when the result is a NaN the CPU pushes that NaN again
 * instead. */
F80 f80_sin(F80 x, bool *out_of_range, F80Env *env);
F80 f80_cos(F80 x, bool *out_of_range, F80Env *env);
void f80_sincos(F80 x, F80 *sin, F80 *cos, bool *out_of_range, F80Env *env);
F80 f80_tan(F80 x, bool *out_of_range, F80Env *env);

/* F2XM1: 2^x - 1. */
F80 f80_2xm1(F80 x, F80Env *env);
/* FYL2X: y * log2(x), and FYL2XP1: y * log2(x + 1), with x = ST(0) and y = ST(1). */
F80 f80_yl2x(F80 x, F80 y, F80Env *env);
F80 f80_yl2xp1(F80 x, F80 y, F80Env *env);
/* FPATAN: the angle of the point (x, y) = (ST(0), ST(1)), atan2(y, x). */
F80 f80_atan(F80 x, F80 y, F80Env *env);

#ifdef X64EMU_F80_TRANS_PRIVATE
/* What f80_trans.c, f80_trig.c and f80_log.c share. */
#include <stdint.h>

/* glibc declares its _Float128 functions and constants for GCC only; clang (the fuzzing
 * build, tests/fuzz) has the type as __float128 and links the same libm functions, and
 * computes the constants (to within a unit of the last place: the fuzzing build checks
 * for crashes, not for the x87's last bit). */
#if defined(__clang__) && !__HAVE_FLOAT128
typedef __float128 Q;
Q sinf128(Q), cosf128(Q), atanf128(Q), atan2f128(Q, Q), expm1f128(Q), log1pf128(Q),
    log2f128(Q), fmaf128(Q, Q, Q), nextafterf128(Q, Q), roundevenf128(Q), roundf128(Q),
    floorf128(Q), ceilf128(Q), fabsf128(Q), atanhf128(Q), frexpf128(Q, int *);
int ilogbf128(Q);
Q ldexpf128(Q, int);
#define M_LN2f128 log1pf128(1)
#define M_LOG2Ef128 (1 / log1pf128(1))
#define M_PIf128 (4 * atan2f128(1, 1))
#else
typedef _Float128 Q;
#endif

/* A finite value, with its integer significand and unbiased exponent (denormals
 * normalized): |a| = sig * 2^(exp - 63), sig's top bit set unless a is zero. */
typedef struct Parts {
  bool neg;
  int32_t exp;
  uint64_t sig;
} Parts;
Parts f80_parts(F80 a);

/* A finite value exactly in binary128 (which holds every 80-bit value: 64 significant
 * bits, the same exponent range, subnormals reaching lower), and its significand
 * alone, 1 <= |q| < 2, for products that would leave binary128's range. */
Q f80_to_q(F80 a);
Q f80_sig_q(Parts p);

/* How the exact result relates to the binary128 value that approximates it: equal, or
 * a little less or more in magnitude (beyond binary128's precision). An irrational
 * result is never equal; the side is known near zero and one, elsewhere it matters only
 * when the value falls on an 80-bit boundary, which is once in 2^49. */
typedef enum { Q_EXACT = 0, Q_BELOW = -1, Q_ABOVE = 1 } QSide;

/* v * 2^scale rounded to 64 bits under the environment's rounding control. */
F80 f80_from_q(Q v, int32_t scale, QSide side, F80Env *env);
/* The same for an irrational result where the CPU's microcode errs to one side: it
 * rounds v + cpu_error units of 2^-F80_CPU_ERROR_BITS of the last place (signed, in
 * magnitude), which matches the CPU's last bit more often than v itself. */
enum { F80_CPU_ERROR_BITS = 10 };
F80 f80_from_q_cpu(Q v, int32_t scale, int32_t cpu_error, F80Env *env);
/* The CPU's own pi, 66 bits (the SDM's "0.C90FDAA2 2168C234 C" * 4): pi/2 is
 * F80_PIO2 * 2^-65. Its trigonometric instructions reduce by it, and FPATAN adds it. */
static const unsigned __int128 F80_PIO2 = (unsigned __int128)0xC90FDAA22168C234ull << 2 | 3;

/* The exact product of a 64-bit significand and one of at most 68 bits: its top 128 bits
 * (bit 127 set), the power of two that scales them back (a * b = top * 2^shift plus
 * what was lost) and whether any bit below them was lost. Intel's microcode holds its
 * constants and its intermediate results in 67 and 68 bits (measured); these products
 * are what it rounds. */
typedef struct Wide {
  unsigned __int128 top;
  int32_t shift;
  bool lost;
} Wide;
Wide f80_mul_wide(uint64_t a, unsigned __int128 b);
/* |x| times a constant k * 2^-k_frac of at most 68 bits, the product truncated to 67 bits
 * as the CPU forms x * ln2 and x * log2(e): the significand, and the exponent that scales
 * it back (|x| * k * 2^-k_frac truncated = sig * 2^exp). */
unsigned __int128 f80_times_constant(Parts x, unsigned __int128 k, int32_t k_frac, int32_t *exp);
/* y times k * 2^k_exp (k of at most 68 bits, the sign k_neg), every bit of the product
 * kept and rounded once, reported inexact as the transcendental instructions always are. */
F80 f80_times_rounded(Parts y, bool k_neg, unsigned __int128 k, int32_t k_exp, F80Env *env);
/* The top `bits` bits of a non-zero binary128 value's significand, truncated, and the
 * exponent that scales them back: |v| truncated = sig * 2^exp. */
unsigned __int128 f80_q_truncated(Q v, unsigned bits, int32_t *exp);
/* A value of the CPU's evaluation, and where the exact value it stands for lies. */
typedef struct QValue {
  Q v;
  QSide side; /* in magnitude */
} QValue;
/* a + b (exact when their exponents are close, else rounded), a * b and a / b rounded, each
 * with the side of the exact result. */
QValue f80_q_sum(Q a, Q b);
QValue f80_q_product(Q a, Q b);
QValue f80_q_quotient(Q a, Q b);
/* a.v rounded once, as f80_from_q; reported inexact even where a is exact, as the
 * transcendental instructions always are (measured). */
F80 f80_from_value(QValue a, F80Env *env);
/* a truncated to 67 bits (toward zero), as the CPU's intermediate results are. */
Q f80_q_truncated67(QValue a);
/* v rounded to nearest to `bits` bits, as the CPU's 64- and 67-bit steps round. */
Q f80_q_rounded(Q v, int bits);
/* c[0] + c[1] x + ... + c[n-1] x^(n-1) by Horner's scheme, in binary128. */
Q f80_q_polynomial(const Q *c, int n, Q x);
/* An exact result that the CPU reports as inexact (PE, and UE when it is a denormal). */
F80 f80_inexact_anyway(F80 r, F80Env *env);

/* The evaluation runs in round-to-nearest whatever the host's mode, so that the
 * result never depends on it. */
int f80_q_begin(void);
void f80_q_end(int saved);
#endif

#endif
