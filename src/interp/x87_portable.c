/* x87_portable.c: the portable tier of x87_host.h: every primitive computed in the
 * f80 integer arithmetic (f80.h, f80_trans.h), so that the results, the exception flags
 * and C1 are the CPU's on any host. The host's long double is only the registers'
 * storage: each value crosses it through the exact 80-bit conversions.
 *
 * Known differences from the CPU (tests/unit/test_x87_portable.c and test_f80_trans.c
 * measure them):
 * - the transcendentals (FSIN, FCOS, FSINCOS, FPTAN, FPATAN, F2XM1, FYL2X, FYL2XP1) are
 *   rounded from a 113-bit evaluation of the exact function, after the x87's own
 *   argument reduction (f80_trans.h); the CPU's microcode is not correctly rounded, and
 *   differs from that in the last bit (or C1) for 2 to 7 percent of operands;
 * - on hosts whose long double is not the x87 format, registers hold values: the
 *   unsupported encodings (unnormals, pseudo-NaNs) do not survive in them. */
#include <string.h>

#include "f80.h"
#include "f80_trans.h"
#include "x87.h"
#include "x87_host.h"

/* ---- registers in and out of the host's long double ---- */

static F80 in(long double v) {
  uint8_t b[10];
  x87_to_ext80(v, b);
  F80 r = {0, (uint16_t)(b[8] | b[9] << 8)};
  for (int i = 7; i >= 0; i--) r.m = r.m << 8 | b[i];
  return r;
}

static long double out(F80 v) {
  uint8_t b[10];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v.m >> (8 * i));
  b[8] = (uint8_t)v.se;
  b[9] = (uint8_t)(v.se >> 8);
  return x87_from_ext80(b);
}

static uint32_t bits_f32(float s) {
  uint32_t b;
  memcpy(&b, &s, 4);
  return b;
}

static uint64_t bits_f64(double s) {
  uint64_t b;
  memcpy(&b, &s, 8);
  return b;
}

/* The primitives' ctl is x87_ctl(): the control word, and above it the guest's flags,
 * which the portable tier has no use for (each operation starts with none). */
static F80Env env_of(uint32_t ctl) { return f80_env((uint16_t)ctl); }

/* ---- arithmetic ---- */

static uint16_t arith(unsigned op, long double *d, F80 s, uint16_t de, uint32_t ctl) {
  F80Env env = env_of(ctl);
  F80 a = in(*d), r;
  switch (op) {
  case X87_ADD: r = f80_arith(F80_ADD, a, s, de, &env); break;
  case X87_MUL: r = f80_arith(F80_MUL, a, s, de, &env); break;
  case X87_SUB: r = f80_arith(F80_SUB, a, s, de, &env); break;
  case X87_SUBR: r = f80_arith(F80_SUB, s, a, de, &env); break;
  case X87_DIV: r = f80_arith(F80_DIV, a, s, de, &env); break;
  default: r = f80_arith(F80_DIV, s, a, de, &env); break;
  }
  *d = out(r);
  return env.sw;
}

uint16_t x87_portable_arith(unsigned op, long double *d, long double s, uint32_t ctl) {
  return arith(op, d, in(s), 0, ctl);
}

uint16_t x87_portable_arith_f32(unsigned op, long double *d, float s, uint32_t ctl) {
  uint16_t de;
  F80 v = f80_from_f32(bits_f32(s), &de);
  return arith(op, d, v, de, ctl);
}

uint16_t x87_portable_arith_f64(unsigned op, long double *d, double s, uint32_t ctl) {
  uint16_t de;
  F80 v = f80_from_f64(bits_f64(s), &de);
  return arith(op, d, v, de, ctl);
}

/* ---- compares ---- */

static uint16_t compare(long double a, F80 b, bool quiet, uint16_t de, uint32_t ctl) {
  F80Env env = env_of(ctl);
  uint16_t cc = f80_compare(in(a), b, quiet, de, &env);
  return cc | env.sw;
}

uint16_t x87_portable_compare(long double a, long double b, bool quiet, uint32_t ctl) {
  return compare(a, in(b), quiet, 0, ctl);
}

uint16_t x87_portable_compare_f32(long double a, float s, uint32_t ctl) {
  uint16_t de;
  F80 v = f80_from_f32(bits_f32(s), &de);
  return compare(a, v, false, de, ctl);
}

uint16_t x87_portable_compare_f64(long double a, double s, uint32_t ctl) {
  uint16_t de;
  F80 v = f80_from_f64(bits_f64(s), &de);
  return compare(a, v, false, de, ctl);
}

uint16_t x87_portable_test(long double a, uint32_t ctl) {
  return compare(a, f80_zero(false), false, 0, ctl);
}

uint16_t x87_portable_examine(long double a) {
  F80 v = in(a);
  uint16_t sign = f80_sign(v) ? X87_C1 : 0;
  switch (f80_class(v)) {
  case F80_QNAN:
  case F80_SNAN: return sign | X87_C0;
  case F80_INF: return sign | X87_C2 | X87_C0;
  case F80_ZERO: return sign | X87_C3;
  case F80_DENORMAL: return sign | X87_C3 | X87_C2;
  case F80_NORMAL: return sign | X87_C2;
  default: return sign; /* unsupported */
  }
}

/* ---- loads and stores ---- */

static uint16_t load(long double *d, F80 v, uint16_t de) {
  if (f80_class(v) == F80_SNAN) {
    v.m |= F80_QUIET_BIT;
    de |= X87_IE;
  }
  *d = out(v);
  return de;
}

uint16_t x87_portable_load_f32(long double *d, float s, uint32_t ctl) {
  (void)ctl;
  uint16_t de;
  F80 v = f80_from_f32(bits_f32(s), &de);
  return load(d, v, de);
}

uint16_t x87_portable_load_f64(long double *d, double s, uint32_t ctl) {
  (void)ctl;
  uint16_t de;
  F80 v = f80_from_f64(bits_f64(s), &de);
  return load(d, v, de);
}

uint16_t x87_portable_store_f32(float *d, long double s, uint32_t ctl) {
  F80Env env = env_of(ctl);
  uint32_t b = f80_to_f32(in(s), &env);
  memcpy(d, &b, 4);
  return env.sw;
}

uint16_t x87_portable_store_f64(double *d, long double s, uint32_t ctl) {
  F80Env env = env_of(ctl);
  uint64_t b = f80_to_f64(in(s), &env);
  memcpy(d, &b, 8);
  return env.sw;
}

uint16_t x87_portable_store_i16(int16_t *d, long double s, uint32_t ctl, bool trunc) {
  F80Env env = env_of(ctl);
  *d = (int16_t)f80_to_int(in(s), 16, trunc, &env);
  return env.sw;
}

uint16_t x87_portable_store_i32(int32_t *d, long double s, uint32_t ctl, bool trunc) {
  F80Env env = env_of(ctl);
  *d = (int32_t)f80_to_int(in(s), 32, trunc, &env);
  return env.sw;
}

uint16_t x87_portable_store_i64(int64_t *d, long double s, uint32_t ctl, bool trunc) {
  F80Env env = env_of(ctl);
  *d = f80_to_int(in(s), 64, trunc, &env);
  return env.sw;
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
  *d = out(f80_make(false, constants[op - X87_FLD1].exp, m + up));
  return 0; /* no exception, and C1 = 0 even when rounded up */
}

/* ---- one-operand operations ---- */

uint16_t x87_portable_unary(unsigned op, long double *x, uint32_t ctl) {
  F80Env env = env_of(ctl);
  F80 a = in(*x), r;
  bool out_of_range = false;
  switch (op) {
  case X87_F2XM1: r = f80_2xm1(a, &env); break;
  case X87_FSQRT: r = f80_sqrt(a, &env); break;
  case X87_FRNDINT: r = f80_round_int(a, &env); break;
  case X87_FSIN: r = f80_sin(a, &out_of_range, &env); break;
  default: r = f80_cos(a, &out_of_range, &env); break;
  }
  if (out_of_range) return env.sw | X87_C2;
  *x = out(r);
  return env.sw;
}

/* ---- two-operand operations ---- */

static uint16_t quotient_bits(unsigned q) {
  return (uint16_t)((q & 4 ? X87_C0 : 0) | (q & 2 ? X87_C3 : 0) | (q & 1 ? X87_C1 : 0));
}

uint16_t x87_portable_binary(unsigned op, long double *st0, long double st1, uint32_t ctl) {
  F80Env env = env_of(ctl);
  F80 a = in(*st0), b = in(st1), r;
  uint16_t cc = 0;
  if (op == X87_FSCALE) {
    r = f80_scale(a, b, &env);
  } else {
    unsigned q;
    bool partial;
    r = f80_rem(a, b, op == X87_FPREM1, &q, &partial, &env);
    cc = (uint16_t)(quotient_bits(q) | (partial ? X87_C2 : 0));
  }
  *st0 = out(r);
  return env.sw | cc;
}

uint16_t x87_portable_binary_pop(unsigned op, long double *r, long double st0, long double st1,
                                 uint32_t ctl) {
  F80Env env = env_of(ctl);
  F80 x = in(st0), y = in(st1), v;
  switch (op) {
  case X87_FYL2X: v = f80_yl2x(x, y, &env); break;
  case X87_FYL2XP1: v = f80_yl2xp1(x, y, &env); break;
  default: v = f80_atan(x, y, &env); break;
  }
  *r = out(v);
  return env.sw;
}

uint16_t x87_portable_split(unsigned op, long double *st0, long double *push, uint32_t ctl) {
  F80Env env = env_of(ctl);
  F80 a = in(*st0), first, second;
  bool out_of_range = false;
  switch (op) {
  case X87_FXTRACT: first = f80_extract(a, &second, &env); break;
  case X87_FPTAN:
    first = f80_tan(a, &out_of_range, &env);
    /* 1.0 is pushed, but a NaN result (a NaN or infinite operand) is pushed again. */
    second = f80_is_nan(first) ? first : f80_make(false, F80_BIAS, F80_INT_BIT);
    break;
  default: f80_sincos(a, &first, &second, &out_of_range, &env); break;
  }
  if (out_of_range) return env.sw | X87_C2;
  *st0 = out(first);
  *push = out(second);
  return env.sw;
}
