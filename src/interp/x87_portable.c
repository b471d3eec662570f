/* x87_portable.c: the portable tier of x87_host.h: host long double arithmetic with
 * <fenv.h> for rounding and exception flags, plus the x87's own rules where C leaves
 * them open: which NaN a result carries, the indefinite value, integer overflow, when
 * DE is reported, FPREM's partial remainders.
 *
 * Known differences from the CPU (the host tier has none):
 * - precision control is not applied: results keep the host's long double precision,
 *   and on hosts whose long double is wider than 64 bits they are not rounded to 64
 *   bits between operations;
 * - C1 ("rounded up") is exact for stores, FIST and FRNDINT, but 0 after arithmetic;
 * - an unmasked exception gets the masked response (the handlers then stop the
 *   instruction as the CPU would, but the CPU's wrapped exponents are not produced);
 * - the unsupported encodings (unnormals, pseudo-NaNs, pseudo-infinities), which the
 *   CPU rejects with IE, are taken as the values they spell;
 * - transcendental results come from the C library: FSIN, FCOS, FPTAN reduce their
 *   argument by an exact pi where the CPU uses a 66-bit one, so large arguments differ
 *   by more than the last bit (tests/unit/test_x87_portable.c measures the bounds). */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>

#include "x87.h"
#include "x87_host.h"

#define QUIET_BIT (1ull << 62)

/* The primitives' `cw` is x87_ctl(): the guest's flags above the control word are of no
 * use here, as <fenv.h> can clear the host's flags cheaply. */

/* ---- the host floating-point environment around one operation ---- */

static int host_rounding(uint32_t cw) {
  switch ((cw >> X87_RC_SHIFT) & 3) {
  case 0: return FE_TONEAREST;
  case 1: return FE_DOWNWARD;
  case 2: return FE_UPWARD;
  default: return FE_TOWARDZERO;
  }
}

static int enter(uint32_t cw) {
  int saved = fegetround();
  fesetround(host_rounding(cw));
  feclearexcept(FE_ALL_EXCEPT);
  return saved;
}

static uint16_t leave(int saved) {
  int e = fetestexcept(FE_ALL_EXCEPT);
  fesetround(saved);
  return (uint16_t)((e & FE_INVALID ? X87_IE : 0) | (e & FE_DIVBYZERO ? X87_ZE : 0) |
                    (e & FE_OVERFLOW ? X87_OE : 0) | (e & FE_UNDERFLOW ? X87_UE : 0) |
                    (e & FE_INEXACT ? X87_PE : 0));
}

/* ---- x87 values ---- */

static uint64_t mantissa64(long double x) {
  uint8_t b[10];
  x87_to_ext80(x, b);
  uint64_t m = 0;
  for (int i = 7; i >= 0; i--) m = m << 8 | b[i];
  return m;
}

static bool is_snan(long double x) { return isnan(x) && !(mantissa64(x) & QUIET_BIT); }

static long double quieted(long double x) {
  uint8_t b[10];
  x87_to_ext80(x, b);
  b[7] |= 0x40;
  return x87_from_ext80(b);
}

static long double indefinite(void) {
  static const uint8_t bytes[10] = {0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF, 0xFF};
  return x87_from_ext80(bytes);
}

static bool denormal(long double x) { return fpclassify(x) == FP_SUBNORMAL; }

/* Float and double operands widened without quieting an SNaN: the fraction is kept
 * aligned to the top, as the CPU's conversion does. */
static long double nan_widened(bool neg, uint64_t frac_top) {
  uint8_t b[10];
  uint64_t m = (1ull << 63) | frac_top;
  for (int i = 0; i < 8; i++, m >>= 8) b[i] = (uint8_t)m;
  b[8] = 0xFF;
  b[9] = neg ? 0xFF : 0x7F;
  return x87_from_ext80(b);
}

static long double widen_f32(float s) {
  if (!isnan(s)) return s;
  uint32_t bits;
  memcpy(&bits, &s, 4);
  return nan_widened(bits >> 31, (uint64_t)(bits & 0x7FFFFF) << 40);
}

static long double widen_f64(double s) {
  if (!isnan(s)) return s;
  uint64_t bits;
  memcpy(&bits, &s, 8);
  return nan_widened(bits >> 63, (bits & 0xFFFFFFFFFFFFFull) << 11);
}

/* The x87's NaN operand rules: an SNaN raises IE; of two NaNs a quiet one beats a
 * signaling one, then the larger significand wins, then the positive one; the result
 * is quiet. */
static bool nan_operands(long double a, long double b, bool two, long double *r, uint16_t *sw) {
  bool na = isnan(a), nb = two && isnan(b);
  if (!na && !nb) return false;
  if ((na && is_snan(a)) || (nb && is_snan(b))) *sw |= X87_IE;
  if (na && nb) {
    bool qa = !is_snan(a), qb = !is_snan(b);
    uint64_t ma = mantissa64(a), mb = mantissa64(b);
    if (qa != qb) *r = qa ? a : b;
    else if (ma != mb) *r = mb > ma ? b : a;
    else *r = signbit(a) ? b : a; /* equal significands: the positive one */
  } else {
    *r = na ? a : b;
  }
  *r = quieted(*r);
  return true;
}

/* The CPU reports a denormal operand only for an operation that goes ahead: not with
 * an invalid operation or a division by zero (NaN operands return before this). */
static uint16_t with_denormal(uint16_t sw, uint16_t de) {
  return (sw & (X87_IE | X87_ZE)) ? sw : sw | de;
}

/* An invalid operation that produced a NaN from non-NaN operands gives the indefinite. */
static long double or_indefinite(long double r) { return isnan(r) ? indefinite() : r; }

/* ---- arithmetic ---- */

static uint16_t arith(unsigned op, long double *d, long double s, uint16_t de, uint32_t cw) {
  long double a = *d, r;
  uint16_t sw = 0;
  if (nan_operands(a, s, true, &r, &sw)) {
    *d = r;
    return sw;
  }
  volatile long double va = a, vb = s, vr;
  int saved = enter(cw);
  switch (op) {
  case X87_ADD: vr = va + vb; break;
  case X87_MUL: vr = va * vb; break;
  case X87_SUB: vr = va - vb; break;
  case X87_SUBR: vr = vb - va; break;
  case X87_DIV: vr = va / vb; break;
  default: vr = vb / va; break;
  }
  sw |= leave(saved);
  *d = or_indefinite(vr);
  return with_denormal(sw, de | (denormal(a) || denormal(s) ? X87_DE : 0));
}

uint16_t x87_portable_arith(unsigned op, long double *d, long double s, uint32_t cw) {
  return arith(op, d, s, 0, cw);
}

uint16_t x87_portable_arith_f32(unsigned op, long double *d, float s, uint32_t cw) {
  return arith(op, d, widen_f32(s), fpclassify(s) == FP_SUBNORMAL ? X87_DE : 0, cw);
}

uint16_t x87_portable_arith_f64(unsigned op, long double *d, double s, uint32_t cw) {
  return arith(op, d, widen_f64(s), fpclassify(s) == FP_SUBNORMAL ? X87_DE : 0, cw);
}

/* ---- compares ---- */

static uint16_t compare(long double a, long double b, bool quiet, uint16_t de) {
  if (isnan(a) || isnan(b)) {
    uint16_t sw = X87_C0 | X87_C2 | X87_C3;
    if (!quiet || is_snan(a) || is_snan(b)) sw |= X87_IE;
    return sw;
  }
  uint16_t sw = de | (denormal(a) || denormal(b) ? X87_DE : 0);
  if (a < b) sw |= X87_C0;
  else if (a == b) sw |= X87_C3;
  return sw;
}

uint16_t x87_portable_compare(long double a, long double b, bool quiet, uint32_t cw) {
  return compare(a, b, quiet, 0);
}
uint16_t x87_portable_compare_f32(long double a, float s, uint32_t cw) {
  return compare(a, widen_f32(s), false, fpclassify(s) == FP_SUBNORMAL ? X87_DE : 0);
}
uint16_t x87_portable_compare_f64(long double a, double s, uint32_t cw) {
  return compare(a, widen_f64(s), false, fpclassify(s) == FP_SUBNORMAL ? X87_DE : 0);
}
uint16_t x87_portable_test(long double a, uint32_t cw) { return compare(a, 0.0L, false, 0); }

uint16_t x87_portable_examine(long double a) {
  uint16_t sw = signbit(a) ? X87_C1 : 0;
  switch (fpclassify(a)) {
  case FP_NAN: return sw | X87_C0;
  case FP_INFINITE: return sw | X87_C2 | X87_C0;
  case FP_ZERO: return sw | X87_C3;
  case FP_SUBNORMAL: return sw | X87_C3 | X87_C2;
  default: return sw | X87_C2;
  }
}

/* ---- loads and stores ---- */

static uint16_t load(long double *d, long double v, bool was_denormal) {
  uint16_t sw = was_denormal ? X87_DE : 0;
  if (is_snan(v)) {
    sw |= X87_IE;
    v = quieted(v);
  }
  *d = v;
  return sw;
}

uint16_t x87_portable_load_f32(long double *d, float s, uint32_t cw) {
  return load(d, widen_f32(s), fpclassify(s) == FP_SUBNORMAL);
}
uint16_t x87_portable_load_f64(long double *d, double s, uint32_t cw) {
  return load(d, widen_f64(s), fpclassify(s) == FP_SUBNORMAL);
}

/* C1 after a rounded store: the magnitude went up. */
static uint16_t rounded_up(long double exact, long double stored) {
  return fabsl(stored) > fabsl(exact) ? X87_C1 : 0;
}

uint16_t x87_portable_store_f32(float *d, long double s, uint32_t cw) {
  if (isnan(s)) {
    uint32_t bits = (signbit(s) ? 0x80000000u : 0) | 0x7FC00000u |
                    (uint32_t)(mantissa64(s) >> 40 & 0x3FFFFF);
    memcpy(d, &bits, 4);
    return is_snan(s) ? X87_IE : 0;
  }
  volatile long double vs = s;
  volatile float vr;
  int saved = enter(cw);
  vr = (float)vs;
  uint16_t sw = leave(saved);
  *d = vr;
  return sw | ((sw & X87_PE) ? rounded_up(s, vr) : 0);
}

uint16_t x87_portable_store_f64(double *d, long double s, uint32_t cw) {
  if (isnan(s)) {
    uint64_t bits = (signbit(s) ? 1ull << 63 : 0) | 0x7FF8000000000000ull |
                    (mantissa64(s) >> 11 & 0x7FFFFFFFFFFFFull);
    memcpy(d, &bits, 8);
    return is_snan(s) ? X87_IE : 0;
  }
  volatile long double vs = s;
  volatile double vr;
  int saved = enter(cw);
  vr = (double)vs;
  uint16_t sw = leave(saved);
  *d = vr;
  return sw | ((sw & X87_PE) ? rounded_up(s, vr) : 0);
}

/* FIST/FISTTP: the integer in [lo, hi] or IE (the caller stores the indefinite). */
static uint16_t to_integer(long double s, uint16_t cw, bool trunc, long double lo, long double hi,
                           long double *r) {
  uint16_t sw = 0;
  if (isnan(s) || isinf(s)) return X87_IE;
  int saved = fegetround();
  fesetround(trunc ? FE_TOWARDZERO : host_rounding(cw));
  volatile long double vs = s;
  *r = nearbyintl(vs);
  fesetround(saved);
  if (*r < lo || *r > hi) return sw | X87_IE;
  if (*r != s) sw |= X87_PE | rounded_up(s, *r);
  return sw;
}

uint16_t x87_portable_store_i16(int16_t *d, long double s, uint32_t cw, bool trunc) {
  long double r = 0;
  uint16_t sw = to_integer(s, cw, trunc, -0x1p15L, 0x1p15L - 1, &r);
  *d = (sw & X87_IE) ? INT16_MIN : (int16_t)r;
  return sw;
}

uint16_t x87_portable_store_i32(int32_t *d, long double s, uint32_t cw, bool trunc) {
  long double r = 0;
  uint16_t sw = to_integer(s, cw, trunc, -0x1p31L, 0x1p31L - 1, &r);
  *d = (sw & X87_IE) ? INT32_MIN : (int32_t)r;
  return sw;
}

uint16_t x87_portable_store_i64(int64_t *d, long double s, uint32_t cw, bool trunc) {
  long double r = 0;
  /* 2^63 - 1 is not a long double on every host: compare with 2^63 instead. */
  uint16_t sw = to_integer(s, cw, trunc, -0x1p63L, 0x1p63L, &r);
  if (!(sw & X87_IE) && r >= 0x1p63L) sw = (sw & ~(X87_PE | X87_C1)) | X87_IE;
  *d = (sw & X87_IE) ? INT64_MIN : (int64_t)r;
  return sw;
}

/* ---- constants: the 64-bit significand truncated, and whether the exact value lies
 * above the halfway point (the CPU rounds its 66-bit constants by RC). ---- */

static const struct {
  uint64_t trunc;
  uint16_t exp;
  bool nearest_up;
} constants[] = {
    [X87_FLDL2T - X87_FLD1] = {0xD49A784BCD1B8AFEull, 0x4000, false},
    [X87_FLDL2E - X87_FLD1] = {0xB8AA3B295C17F0BBull, 0x3FFF, true},
    [X87_FLDPI - X87_FLD1] = {0xC90FDAA22168C234ull, 0x4000, true},
    [X87_FLDLG2 - X87_FLD1] = {0x9A209A84FBCFF798ull, 0x3FFD, true},
    [X87_FLDLN2 - X87_FLD1] = {0xB17217F7D1CF79ABull, 0x3FFE, true},
};

uint16_t x87_portable_constant(unsigned op, long double *d, uint32_t cw) {
  if (op == X87_FLD1 || op == X87_FLDZ) {
    *d = op == X87_FLD1 ? 1.0L : 0.0L;
    return 0;
  }
  unsigned rc = (cw >> X87_RC_SHIFT) & 3;
  uint64_t m = constants[op - X87_FLD1].trunc;
  bool up = rc == 2 || (rc == 0 && constants[op - X87_FLD1].nearest_up);
  uint8_t b[10];
  m += up;
  for (int i = 0; i < 8; i++, m >>= 8) b[i] = (uint8_t)m;
  b[8] = (uint8_t)constants[op - X87_FLD1].exp;
  b[9] = (uint8_t)(constants[op - X87_FLD1].exp >> 8);
  *d = x87_from_ext80(b);
  return 0; /* no exception, and C1 = 0 even when rounded up */
}

/* ---- one-operand operations ---- */

static bool trig_out_of_range(long double x) { return fabsl(x) >= 0x1p63L; }

uint16_t x87_portable_unary(unsigned op, long double *x, uint32_t cw) {
  long double a = *x, r;
  uint16_t sw = 0;
  if (nan_operands(a, 0, false, &r, &sw)) {
    *x = r;
    return sw;
  }
  uint16_t de = denormal(a) ? X87_DE : 0;
  bool trig = op == X87_FSIN || op == X87_FCOS;
  if (trig && isinf(a)) {
    *x = indefinite();
    return X87_IE;
  }
  if (trig && trig_out_of_range(a)) return X87_C2;
  volatile long double va = a, vr;
  int saved = enter(cw);
  switch (op) {
  case X87_F2XM1: vr = expm1l(va * 0.693147180559945309417232121458176568L); break;
  case X87_FSQRT: vr = sqrtl(va); break;
  case X87_FRNDINT: vr = nearbyintl(va); break;
  case X87_FSIN: vr = sinl(va); break;
  default: vr = cosl(va); break;
  }
  sw |= leave(saved);
  r = vr;
  if (op == X87_FRNDINT) {
    sw &= ~X87_PE;
    if (r != a) sw |= X87_PE | rounded_up(a, r);
  }
  *x = or_indefinite(r);
  return with_denormal(sw, de);
}

/* ---- two-operand operations ---- */

/* FPREM and FPREM1 finish only when the exponents differ by less than 64: otherwise
 * they give a partial remainder (C2) that software loops on. */
enum { PREM_PARTIAL_BITS = 32 };

static uint16_t quotient_bits(uint64_t q) {
  return (uint16_t)((q & 4 ? X87_C0 : 0) | (q & 2 ? X87_C3 : 0) | (q & 1 ? X87_C1 : 0));
}

static uint16_t prem(bool ieee, long double *st0, long double st1) {
  long double a = *st0, r;
  uint16_t sw = 0;
  if (nan_operands(a, st1, true, &r, &sw)) {
    *st0 = r;
    return sw;
  }
  if (isinf(a) || st1 == 0) {
    *st0 = indefinite();
    return X87_IE;
  }
  if (denormal(a) || denormal(st1)) sw |= X87_DE;
  if (isinf(st1) || a == 0) return sw;
  int d = ilogbl(a) - ilogbl(st1);
  if (d >= 64) {
    /* As the CPU does: reduce by ST(1) * 2^(32 * (d / 32) - 32), the quotient's low
     * bits stay those of the whole quotient. */
    *st0 = fmodl(a, ldexpl(st1, d / PREM_PARTIAL_BITS * PREM_PARTIAL_BITS - PREM_PARTIAL_BITS));
    return sw | X87_C2;
  }
  int q = 0;
  long double near = remquol(a, st1, &q);
  unsigned mag = (unsigned)(q < 0 ? -q : q);
  if (ieee) {
    r = near;
  } else {
    r = fmodl(a, st1);
    if (r != near) mag -= 1; /* the nearest quotient was one further from zero */
  }
  *st0 = r;
  return sw | quotient_bits(mag);
}

static uint16_t scale(long double *st0, long double st1, uint32_t cw) {
  long double a = *st0, r;
  uint16_t sw = 0;
  if (nan_operands(a, st1, true, &r, &sw)) {
    *st0 = r;
    return sw;
  }
  if (denormal(a) || denormal(st1)) sw |= X87_DE;
  if (isinf(st1)) {
    bool up = st1 > 0;
    if ((up && a == 0) || (!up && isinf(a))) {
      *st0 = indefinite();
      return sw | X87_IE;
    }
    if (a != 0 && !isinf(a)) *st0 = up ? copysignl(INFINITY, a) : copysignl(0, a);
    return sw;
  }
  long double n = truncl(st1);
  int e = n > 100000 ? 100000 : n < -100000 ? -100000 : (int)n;
  volatile long double va = a, vr;
  int saved = enter(cw);
  vr = scalbnl(va, e);
  sw |= leave(saved);
  *st0 = vr;
  return sw;
}

uint16_t x87_portable_binary(unsigned op, long double *st0, long double st1, uint32_t cw) {
  switch (op) {
  case X87_FPREM: return prem(false, st0, st1);
  case X87_FPREM1: return prem(true, st0, st1);
  default: return scale(st0, st1, cw);
  }
}

uint16_t x87_portable_binary_pop(unsigned op, long double *r, long double st0, long double st1,
                                 uint32_t cw) {
  uint16_t sw = 0;
  if (nan_operands(st0, st1, true, r, &sw)) return sw;
  if (denormal(st0) || denormal(st1)) sw |= X87_DE;
  volatile long double x = st0, y = st1, vr;
  int saved = enter(cw);
  switch (op) {
  case X87_FYL2X: vr = y * log2l(x); break;
  case X87_FYL2XP1: vr = y * (log1pl(x) * 1.44269504088896340735992468100189214L); break;
  default: vr = atan2l(y, x); break;
  }
  sw |= leave(saved);
  *r = or_indefinite(vr);
  return sw;
}

uint16_t x87_portable_split(unsigned op, long double *st0, long double *push, uint32_t cw) {
  long double a = *st0, r;
  uint16_t sw = 0;
  if (nan_operands(a, 0, false, &r, &sw)) {
    *st0 = *push = r;
    return sw;
  }
  if (denormal(a)) sw |= X87_DE;
  if (op == X87_FXTRACT) {
    if (a == 0) {
      *st0 = -INFINITY;
      *push = a;
      return sw | X87_ZE;
    }
    if (isinf(a)) {
      *st0 = INFINITY;
      *push = a;
      return sw;
    }
    long double e = logbl(a);
    *st0 = e;
    *push = scalbnl(a, -(int)e);
    return sw;
  }
  if (isinf(a)) {
    *st0 = *push = indefinite();
    return sw | X87_IE;
  }
  if (trig_out_of_range(a)) return sw | X87_C2;
  volatile long double va = a, v0, v1;
  int saved = enter(cw);
  if (op == X87_FPTAN) {
    v0 = tanl(va);
    v1 = 1.0L;
  } else {
    v0 = sinl(va);
    v1 = cosl(va);
  }
  sw |= leave(saved);
  *st0 = v0;
  *push = v1;
  return sw;
}
