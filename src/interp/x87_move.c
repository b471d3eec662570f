/* x87_move.c: x87 loads and stores (FLD, FST, FILD, FIST, FISTTP, FBLD, FBSTP), the
 * constants, FXCH and FCMOVcc. */
#include <math.h>

#include "flags.h"
#include "ops_x87.h"
#include "x87_state.h"

/* A load: the value is pushed, or a full stack takes the overflow response. The value
 * comes from a host conversion that may raise IE (SNaN) or DE (denormal). */
static void push_converted(X87 *f, long double v, uint16_t hsw) {
  if (x87_push_overflows(f)) {
    if (x87_overflow(f)) x87_push(f, x87_indefinite());
    return;
  }
  /* A denormal operand, even unmasked, does not stop a load. */
  if (x87_commit_stops(f, hsw, X87_C1, X87_IE)) x87_push(f, v);
}

/* D9 /0 */
void op_x87_fld_m32(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  long double v = 0;
  uint16_t hsw = XH(c, load_f32, &v, x87_f32(ld32(a)), x87_ctl_of(&c->fpu));
  push_converted(&c->fpu, v, hsw);
  DISPATCH_NEXT(c, in);
}

/* DD /0 */
void op_x87_fld_m64(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  long double v = 0;
  uint16_t hsw = XH(c, load_f64, &v, x87_f64(ld64(a)), x87_ctl_of(&c->fpu));
  push_converted(&c->fpu, v, hsw);
  DISPATCH_NEXT(c, in);
}

/* DB /5: the register format itself; no exceptions. */
void op_x87_fld_m80(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  uint8_t b[10];
  ld80(a, b);
  x87_push_checked(&c->fpu, x87_from_ext80(b));
  DISPATCH_NEXT(c, in);
}

/* D9 C0+i: push a copy of ST(i); an empty ST(i) pushes the indefinite value. */
void op_x87_fld_sti(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, in->rm)) { /* an underflow, even when the push also overflows */
    if (x87_underflow(f)) x87_push(f, x87_indefinite());
    return;
  }
  x87_push_checked(f, *x87_st(f, in->rm));
  DISPATCH_NEXT(c, in);
}

/* A store from an empty ST(0) is an underflow: masked, the indefinite value of the
 * destination format is stored and the pops happen.
 *
 * After a rounded store: the flags, and the pop unless an unmasked exception stopped
 * the instruction. */
static void store_done(X87 *f, uint16_t hsw, bool pop) {
  bool allowed = x87_store_allowed(f, hsw);
  if (x87_commit(f, hsw, X87_C1) && allowed && pop) x87_pop(f);
}

/* D9 /2 FST m32, D9 /3 FSTP m32 (in->aux 1). */
void op_x87_fst_m32(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    st32(a, 0xFFC00000u);
    if (in->aux) x87_pop(f);
    return;
  }
  float v = 0;
  uint16_t hsw = XH(c, store_f32, &v, *x87_st(f, 0), x87_ctl_of(f));
  uint32_t bits;
  memcpy(&bits, &v, 4);
  if (x87_store_allowed(f, hsw)) st32(a, bits);
  store_done(f, hsw, in->aux);
  DISPATCH_NEXT(c, in);
}

/* DD /2 FST m64, DD /3 FSTP m64 (in->aux 1). */
void op_x87_fst_m64(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    st64(a, 0xFFF8000000000000ull);
    if (in->aux) x87_pop(f);
    return;
  }
  double v = 0;
  uint16_t hsw = XH(c, store_f64, &v, *x87_st(f, 0), x87_ctl_of(f));
  uint64_t bits;
  memcpy(&bits, &v, 8);
  if (x87_store_allowed(f, hsw)) st64(a, bits);
  store_done(f, hsw, in->aux);
  DISPATCH_NEXT(c, in);
}

/* DB /7: FSTP m80, exact. */
void op_x87_fstp_m80(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  X87 *f = &c->fpu;
  uint8_t b[10];
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    x87_to_ext80(x87_indefinite(), b);
  } else {
    x87_to_ext80(*x87_st(f, 0), b);
    f->sw &= (uint16_t)~X87_C1;
  }
  st80(a, b);
  x87_pop(f);
  DISPATCH_NEXT(c, in);
}

/* DD D0+i FST ST(i), DD D8+i FSTP ST(i) (in->aux 1), and the DF D0+i, DF D8+i aliases
 * of FSTP. */
void op_x87_fst_sti(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    x87_set_st(f, in->rm, x87_indefinite());
  } else {
    f->sw &= (uint16_t)~X87_C1;
    x87_set_st(f, in->rm, *x87_st(f, 0));
  }
  if (in->aux) x87_pop(f);
  DISPATCH_NEXT(c, in);
}

/* D9 D8+i: FSTPNCE, an FSTP ST(i) that takes no stack fault: with ST(0) empty it only
 * pops. C1 = 0. */
void op_x87_fstpnce(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  f->sw &= (uint16_t)~X87_C1;
  if (!x87_empty(f, 0)) x87_set_st(f, in->rm, *x87_st(f, 0));
  x87_pop(f);
  DISPATCH_NEXT(c, in);
}

/* FILD: integers up to 64 bits are exact in the 64-bit significand. */
void op_x87_fild_m16(Cpu *c, const Insn *in) { /* DF /0 */
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  x87_push_checked(&c->fpu, (long double)(int16_t)ld16(a));
  DISPATCH_NEXT(c, in);
}

void op_x87_fild_m32(Cpu *c, const Insn *in) { /* DB /0 */
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  x87_push_checked(&c->fpu, (long double)(int32_t)ld32(a));
  DISPATCH_NEXT(c, in);
}

void op_x87_fild_m64(Cpu *c, const Insn *in) { /* DF /5 */
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  x87_push_checked(&c->fpu, (long double)(int64_t)ld64(a));
  DISPATCH_NEXT(c, in);
}

/* FIST/FISTP round by RC, FISTTP truncates; NaN, infinity and out-of-range values
 * raise IE and store the integer indefinite (the most negative integer) when masked.
 * in->op: 1 for FISTTP; in->aux: pops. */
static void fist(Cpu *c, const Insn *in, unsigned size) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    st(a, 1ull << (size * 8 - 1), size);
    if (in->aux) x87_pop(f);
    return;
  }
  long double s = *x87_st(f, 0);
  uint16_t hsw;
  uint64_t v;
  bool trunc = in->op != 0;
  if (size == 2) {
    int16_t r = 0;
    hsw = XH(c, store_i16, &r, s, x87_ctl_of(f), trunc);
    v = (uint16_t)r;
  } else if (size == 4) {
    int32_t r = 0;
    hsw = XH(c, store_i32, &r, s, x87_ctl_of(f), trunc);
    v = (uint32_t)r;
  } else {
    int64_t r = 0;
    hsw = XH(c, store_i64, &r, s, x87_ctl_of(f), trunc);
    v = (uint64_t)r;
  }
  if (x87_store_allowed(f, hsw)) st(a, v, size);
  store_done(f, hsw, in->aux);
}

void op_x87_fist_m16(Cpu *c, const Insn *in) {
  fist(c, in, 2);
  DISPATCH_NEXT(c, in);
} /* DF /1 /2 /3 */
void op_x87_fist_m32(Cpu *c, const Insn *in) {
  fist(c, in, 4);
  DISPATCH_NEXT(c, in);
} /* DB /1 /2 /3 */
void op_x87_fist_m64(Cpu *c, const Insn *in) {
  fist(c, in, 8);
  DISPATCH_NEXT(c, in);
} /* DF /7, DD /1 */

/* DF /4: 18 packed BCD digits and a sign byte; exact. */
void op_x87_fbld(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  uint8_t b[10];
  ld80(a, b);
  uint64_t n = 0;
  for (int i = 8; i >= 0; i--) n = n * 100 + (uint64_t)(b[i] >> 4) * 10 + (b[i] & 15);
  long double v = (long double)n;
  x87_push_checked(&c->fpu, (b[9] & 0x80) ? -v : v);
  DISPATCH_NEXT(c, in);
}

/* DF /6: ST(0) rounded by RC to packed BCD, then pop. Out of range (|x| >= 10^18),
 * NaN or infinity: IE and, masked, the BCD indefinite. */
void op_x87_fbstp(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  X87 *f = &c->fpu;
  static const uint8_t bcd_indefinite[10] = {0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF, 0xFF};
  uint8_t b[10];
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    st80(a, bcd_indefinite);
    x87_pop(f);
    return;
  }
  long double s = *x87_st(f, 0);
  int64_t r = 0;
  uint16_t hsw = XH(c, store_i64, &r, s, x87_ctl_of(f), false);
  uint64_t mag = r < 0 ? 0 - (uint64_t)r : (uint64_t)r;
  if ((hsw & X87_IE) || mag >= 1000000000000000000ull) {
    hsw = (uint16_t)((hsw & ~(X87_PE | X87_C1)) | X87_IE);
    memcpy(b, bcd_indefinite, 10);
  } else {
    for (int i = 0; i < 9; i++, mag /= 100) b[i] = (uint8_t)((mag % 100 / 10) << 4 | mag % 10);
    b[9] = signbit(s) ? 0x80 : 0;
  }
  if (x87_store_allowed(f, hsw)) st80(a, b);
  store_done(f, hsw, true);
  DISPATCH_NEXT(c, in);
}

/* D9 E8..EE: FLD1 FLDL2T FLDL2E FLDPI FLDLG2 FLDLN2 FLDZ (in->op: second byte). */
void op_x87_fldconst(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  long double v = 0;
  uint16_t hsw = XH(c, constant, in->op, &v, x87_ctl_of(f));
  push_converted(f, v, hsw);
  DISPATCH_NEXT(c, in);
}

/* D9 C8+i (and DD C8+i, DF C8+i): exchange ST(0) and ST(i). Masked underflow: an empty
 * one is taken as the indefinite value. */
void op_x87_fxch(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  unsigned i = in->rm;
  bool e0 = x87_empty(f, 0), ei = x87_empty(f, i);
  if (e0 || ei) {
    if (!x87_underflow(f)) return;
    if (e0) x87_set_st(f, 0, x87_indefinite());
    if (ei) x87_set_st(f, i, x87_indefinite());
  } else {
    f->sw &= (uint16_t)~X87_C1;
  }
  long double t = *x87_st(f, 0);
  *x87_st(f, 0) = *x87_st(f, i);
  *x87_st(f, i) = t;
  DISPATCH_NEXT(c, in);
}

/* DA C0..DF, DB C0..DF: ST(0) = ST(i) if condition in->op holds; C0-C3 unchanged. */
void op_x87_fcmov(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0) || x87_empty(f, in->rm)) {
    if (x87_underflow(f)) x87_set_st(f, 0, x87_indefinite());
    return;
  }
  if (cond(c, in->op)) x87_set_st(f, 0, *x87_st(f, in->rm));
  DISPATCH_NEXT(c, in);
}
