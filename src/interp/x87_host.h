/* x87_host.h: the arithmetic of x87 instructions on the host, in two tiers chosen by
 * fp_tier (mxcsr.h): the host's own x87 running the same operation (x86-64 only; exact
 * by construction, flags and condition codes included) and the portable one, x87
 * arithmetic in integers of its own (f80.h, f80_trans.h), bit-exact but for the
 * transcendentals' last bit.
 *
 * Every primitive runs under the guest control word in `ctl` (x87_ctl: rounding,
 * precision, and exception masks: an unmasked exception gets the CPU's unmasked
 * response, never a host trap) and returns status word bits: the exception flags the
 * operation raised (possibly with some the guest already has) and C0-C3. Stack checks (empty registers, overflow)
 * are the caller's: operands here are always valid registers. */
#ifndef X64EMU_X87_HOST_H
#define X64EMU_X87_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "mxcsr.h"

/* The guest's control word, and above it the exception flags it already has. */
static inline uint32_t x87_ctl(uint16_t cw, uint16_t sw) {
  return cw | (uint32_t)(sw & 0x3F) << 16;
}

/* D8 /r order: the ModRM.reg field of the arithmetic escape opcodes. */
enum { X87_ADD, X87_MUL, X87_COM, X87_COMP, X87_SUB, X87_SUBR, X87_DIV, X87_DIVR };

/* Operations named by the second byte of their D9 encoding. */
enum {
  X87_FLD1 = 0xE8, X87_FLDL2T, X87_FLDL2E, X87_FLDPI, X87_FLDLG2, X87_FLDLN2, X87_FLDZ,
  X87_F2XM1 = 0xF0, X87_FYL2X, X87_FPTAN, X87_FPATAN, X87_FXTRACT, X87_FPREM1,
  X87_FPREM = 0xF8, X87_FYL2XP1, X87_FSQRT, X87_FSINCOS, X87_FRNDINT, X87_FSCALE,
  X87_FSIN, X87_FCOS,
};

#define X87_HOST_OPS(T)                                                                   \
  /* *d = *d op s for X87_ADD, MUL, SUB, SUBR, DIV, DIVR. */                             \
  uint16_t T##_arith(unsigned op, long double *d, long double s, uint32_t ctl);            \
  uint16_t T##_arith_f32(unsigned op, long double *d, float s, uint32_t ctl);              \
  uint16_t T##_arith_f64(unsigned op, long double *d, double s, uint32_t ctl);             \
  /* FCOM (quiet false) or FUCOM (quiet true) of a with b: C0, C2, C3 and IE/DE. */      \
  uint16_t T##_compare(long double a, long double b, bool quiet, uint32_t ctl);            \
  uint16_t T##_compare_f32(long double a, float s, uint32_t ctl);                          \
  uint16_t T##_compare_f64(long double a, double s, uint32_t ctl);                         \
  uint16_t T##_test(long double a, uint32_t ctl); /* FTST */                               \
  uint16_t T##_examine(long double a); /* FXAM of a non-empty register */                 \
  uint16_t T##_load_f32(long double *d, float s, uint32_t ctl);                            \
  uint16_t T##_load_f64(long double *d, double s, uint32_t ctl);                           \
  uint16_t T##_store_f32(float *d, long double s, uint32_t ctl);                           \
  uint16_t T##_store_f64(double *d, long double s, uint32_t ctl);                          \
  /* FIST (trunc false, rounding by cw) and FISTTP (trunc true). */                      \
  uint16_t T##_store_i16(int16_t *d, long double s, uint32_t ctl, bool trunc);             \
  uint16_t T##_store_i32(int32_t *d, long double s, uint32_t ctl, bool trunc);             \
  uint16_t T##_store_i64(int64_t *d, long double s, uint32_t ctl, bool trunc);             \
  uint16_t T##_constant(unsigned op, long double *d, uint32_t ctl);                        \
  /* F2XM1, FSQRT, FRNDINT, FSIN, FCOS on *x. */                                          \
  uint16_t T##_unary(unsigned op, long double *x, uint32_t ctl);                           \
  /* FPREM, FPREM1, FSCALE: *st0 = op(*st0, st1). */                                      \
  uint16_t T##_binary(unsigned op, long double *st0, long double st1, uint32_t ctl);       \
  /* FYL2X, FYL2XP1, FPATAN: *r = op(st0, st1), the new ST(1) before the pop. */          \
  uint16_t T##_binary_pop(unsigned op, long double *r, long double st0, long double st1,  \
                          uint32_t ctl);                                                   \
  /* FPTAN, FSINCOS, FXTRACT: ST(0) becomes *st0, then *push is pushed (FPTAN and        \
   * FSINCOS push nothing and change nothing when they report C2, out of range). */      \
  uint16_t T##_split(unsigned op, long double *st0, long double *push, uint32_t ctl);

#ifdef __x86_64__
X87_HOST_OPS(x87_native)
#define X87_NATIVE_OR(c, native, portable) ((c)->m->fp_tier == FP_TIER_HOST ? (native) : (portable))
#else
#define X87_NATIVE_OR(c, native, portable) (portable)
#endif
X87_HOST_OPS(x87_portable)

/* The tier dispatch: XH(c, name, args) runs x87_native_name or x87_portable_name, as the
 * machine of CPU c chose. */
#define XH(c, name, ...) \
  X87_NATIVE_OR(c, x87_native_##name(__VA_ARGS__), x87_portable_##name(__VA_ARGS__))

#endif
