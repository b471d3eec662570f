/* x87_trans.c: x87 operations on ST(0) and ST(1): FCHS FABS, F2XM1 FSQRT FRNDINT FSIN
 * FCOS, FPREM FPREM1 FSCALE, FYL2X FYL2XP1 FPATAN, FPTAN FSINCOS FXTRACT. */
#include <math.h>

#include "ops_x87.h"
#include "x87_state.h"

/* An empty operand of an operation whose result lands in ST(0). */
static void underflow_st0(X87 *f) {
  if (x87_underflow(f)) x87_set_st(f, 0, x87_indefinite());
}

/* The operations that define C2 clear it on a stack fault. */
static bool defines_c2(unsigned op) {
  return op == X87_FSIN || op == X87_FCOS || op == X87_FPTAN || op == X87_FSINCOS ||
         op == X87_FPREM || op == X87_FPREM1;
}

/* FABS clears the sign bit, FCHS flips it; nothing else changes (no exception, even for
 * an SNaN); C1 = 0. */
static void change_sign(Cpu *c, const Insn *in, bool clear) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    underflow_st0(f);
    return;
  }
  f->sw &= (uint16_t)~X87_C1;
  long double *x = x87_st(f, 0);
  *x = clear ? fabsl(*x) : -*x;
}

/* D9 E0 */
void op_x87_fchs(Cpu *c, const Insn *in) {
  change_sign(c, in, false);
  DISPATCH_NEXT(c, in);
}

/* D9 E1 */
void op_x87_fabs(Cpu *c, const Insn *in) {
  change_sign(c, in, true);
  DISPATCH_NEXT(c, in);
}

/* D9 F0 F2XM1, FA FSQRT, FC FRNDINT, FE FSIN, FF FCOS: ST(0) = op(ST(0)). FSIN and FCOS
 * report an operand out of range (|x| >= 2^63) in C2 and leave it unchanged. */
void op_x87_unary(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  bool trig = defines_c2(in->op);
  if (x87_empty(f, 0)) {
    if (trig) f->sw &= (uint16_t)~X87_C2;
    underflow_st0(f);
    return;
  }
  long double r = *x87_st(f, 0);
  uint16_t hsw = XH(c, unary, in->op, &r, x87_ctl_of(f));
  if (x87_commit(f, hsw, trig ? X87_C1 | X87_C2 : X87_C1)) x87_set_st(f, 0, r);
  DISPATCH_NEXT(c, in);
}

/* D9 F8 FPREM, F5 FPREM1 (C2: partial remainder; C0 C3 C1: quotient bits 2 1 0),
 * FD FSCALE: ST(0) = op(ST(0), ST(1)). */
void op_x87_binary(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0) || x87_empty(f, 1)) {
    if (defines_c2(in->op)) f->sw &= (uint16_t)~X87_C2;
    underflow_st0(f);
    return;
  }
  long double r = *x87_st(f, 0);
  uint16_t hsw = XH(c, binary, in->op, &r, *x87_st(f, 1), x87_ctl_of(f));
  /* FPREM and FPREM1 leave C0 and C3 as they were when the result is a NaN or an
   * unmasked exception stopped them. */
  bool no_quotient = isnan(r) || (hsw & ~f->cw & (X87_IE | X87_DE | X87_ZE));
  uint16_t cc = in->op == X87_FSCALE ? X87_C1 : no_quotient ? X87_C1 | X87_C2 : X87_CC;
  if (x87_commit(f, hsw, cc)) x87_set_st(f, 0, r);
  DISPATCH_NEXT(c, in);
}

/* D9 F1 FYL2X, F9 FYL2XP1, F3 FPATAN: ST(1) = op(ST(0), ST(1)), then pop. */
void op_x87_binary_pop(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  long double r = 0;
  if (x87_empty(f, 0) || x87_empty(f, 1)) {
    if (!x87_underflow(f)) return;
    r = x87_indefinite();
  } else {
    uint16_t hsw = XH(c, binary_pop, in->op, &r, *x87_st(f, 0), *x87_st(f, 1), x87_ctl_of(f));
    if (!x87_commit(f, hsw, X87_C1)) return;
  }
  x87_set_st(f, 1, r);
  x87_pop(f);
  DISPATCH_NEXT(c, in);
}

/* D9 F2 FPTAN (ST(0) = tan, push 1.0), FB FSINCOS (ST(0) = sin, push cos), F4 FXTRACT
 * (ST(0) = exponent, push significand). A full stack is an overflow; FPTAN and FSINCOS
 * out of range (C2) change nothing else. */
void op_x87_split(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  bool trig = defines_c2(in->op);
  if (trig) f->sw &= (uint16_t)~X87_C2; /* also for the stack faults */
  if (x87_empty(f, 0)) {
    if (!x87_underflow(f)) return;
    x87_set_st(f, 0, x87_indefinite());
    x87_push(f, x87_indefinite());
    return;
  }
  if (x87_push_overflows(f)) {
    if (!x87_overflow(f)) return;
    x87_set_st(f, 0, x87_indefinite());
    x87_push(f, x87_indefinite());
    return;
  }
  long double st0 = *x87_st(f, 0), pushed = 0;
  uint16_t hsw = XH(c, split, in->op, &st0, &pushed, x87_ctl_of(f));
  if (!x87_commit(f, hsw, trig ? X87_C1 | X87_C2 : X87_C1)) return;
  if (trig && (hsw & X87_C2)) return;
  x87_set_st(f, 0, st0);
  x87_push(f, pushed);
  DISPATCH_NEXT(c, in);
}
