/* x87_arith.c: x87 arithmetic and compares: FADD FMUL FSUB(R) FDIV(R) with every operand
 * form, FIADD.., FCOM/FUCOM/FICOM and their popping forms, FCOMI/FUCOMI, FTST, FXAM. */
#include "flags.h"
#include "ops_x87.h"
#include "x87_state.h"

static bool is_compare(unsigned op) { return op == X87_COM || op == X87_COMP; }
static unsigned compare_pops(unsigned op) { return op == X87_COMP; }

static void pop_n(X87 *f, unsigned n) {
  while (n--) x87_pop(f);
}

/* An empty operand. A compare says unordered. Masked, the destination becomes the
 * indefinite value and the pops happen; unmasked, nothing else changes. */
static void arith_underflow(X87 *f, unsigned op, unsigned dst, unsigned pops) {
  bool masked = x87_underflow(f);
  if (is_compare(op)) f->sw |= X87_C0 | X87_C2 | X87_C3;
  if (!masked) return;
  if (!is_compare(op)) x87_set_st(f, dst, x87_indefinite());
  pop_n(f, pops);
}

/* A compare sets C0, C2, C3 (C1 = 0) even when its exception is unmasked; then it does
 * not pop. */
static void compare_done(X87 *f, uint16_t hsw, unsigned pops) {
  f->sw = (uint16_t)((f->sw & ~X87_CC) | (hsw & X87_CC));
  if (x87_commit(f, hsw, 0)) pop_n(f, pops);
}

static void arith_done(X87 *f, uint16_t hsw, unsigned dst, long double r, unsigned pops) {
  if (!x87_commit(f, hsw, X87_C1)) return;
  x87_set_st(f, dst, r);
  pop_n(f, pops);
}

/* ST(0) op= s, or ST(0) compared with s, for operands that are exact as long double. */
static void st0_op_value(Cpu *c, unsigned op, long double s) {
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    arith_underflow(f, op, 0, compare_pops(op));
    return;
  }
  if (is_compare(op)) {
    compare_done(f, XH(c, compare, *x87_st(f, 0), s, false, x87_ctl_of(f)), compare_pops(op));
    return;
  }
  long double r = *x87_st(f, 0);
  uint16_t hsw = XH(c, arith, op, &r, s, x87_ctl_of(f));
  arith_done(f, hsw, 0, r, 0);
}

/* D8 /r: m32fp. */
void op_x87_arith_m32fp(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  float s = x87_f32(ld32(a));
  X87 *f = &c->fpu;
  unsigned op = in->op;
  if (x87_empty(f, 0)) {
    arith_underflow(f, op, 0, compare_pops(op));
  } else if (is_compare(op)) {
    compare_done(f, XH(c, compare_f32, *x87_st(f, 0), s, x87_ctl_of(f)), compare_pops(op));
  } else {
    long double r = *x87_st(f, 0);
    uint16_t hsw = XH(c, arith_f32, op, &r, s, x87_ctl_of(f));
    arith_done(f, hsw, 0, r, 0);
  }
  DISPATCH_NEXT(c, in);
}

/* DC /r: m64fp. */
void op_x87_arith_m64fp(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  double s = x87_f64(ld64(a));
  X87 *f = &c->fpu;
  unsigned op = in->op;
  if (x87_empty(f, 0)) {
    arith_underflow(f, op, 0, compare_pops(op));
  } else if (is_compare(op)) {
    compare_done(f, XH(c, compare_f64, *x87_st(f, 0), s, x87_ctl_of(f)), compare_pops(op));
  } else {
    long double r = *x87_st(f, 0);
    uint16_t hsw = XH(c, arith_f64, op, &r, s, x87_ctl_of(f));
    arith_done(f, hsw, 0, r, 0);
  }
  DISPATCH_NEXT(c, in);
}

/* DA /r: m32int. Integers convert exactly, so they take the register path. */
void op_x87_arith_m32int(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  st0_op_value(c, in->op, (long double)(int32_t)ld32(a));
  DISPATCH_NEXT(c, in);
}

/* DE /r: m16int. */
void op_x87_arith_m16int(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  x87_begin(c, in);
  st0_op_value(c, in->op, (long double)(int16_t)ld16(a));
  DISPATCH_NEXT(c, in);
}

/* D8 C0+i: ST(0) = ST(0) op ST(i). D8 D0+i, D8 D8+i: FCOM, FCOMP ST(i), and the
 * DC D0+i, DC D8+i, DE D0+i aliases. */
void op_x87_arith_st0_sti(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, in->rm)) {
    arith_underflow(f, in->op, 0, compare_pops(in->op));
    return;
  }
  st0_op_value(c, in->op, *x87_st(f, in->rm));
  DISPATCH_NEXT(c, in);
}

/* DC C0+i: ST(i) = ST(i) op ST(0); DE C0+i: the same, then pop (in->aux). */
void op_x87_arith_sti_st0(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0) || x87_empty(f, in->rm)) {
    arith_underflow(f, in->op, in->rm, in->aux);
    return;
  }
  long double r = *x87_st(f, in->rm);
  uint16_t hsw = XH(c, arith, in->op, &r, *x87_st(f, 0), x87_ctl_of(f));
  arith_done(f, hsw, in->rm, r, in->aux);
  DISPATCH_NEXT(c, in);
}

/* DD E0+i: FUCOM ST(i); DD E8+i: FUCOMP ST(i) (in->aux 1). */
void op_x87_fucom(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0) || x87_empty(f, in->rm)) {
    arith_underflow(f, X87_COM, 0, in->aux);
    return;
  }
  compare_done(f, XH(c, compare, *x87_st(f, 0), *x87_st(f, in->rm), true, x87_ctl_of(f)), in->aux);
  DISPATCH_NEXT(c, in);
}

/* DE D9: FCOMPP; DA E9: FUCOMPP (in->op 1). Both pop twice. */
void op_x87_fcompp(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0) || x87_empty(f, 1)) {
    arith_underflow(f, X87_COM, 0, 2);
    return;
  }
  compare_done(f, XH(c, compare, *x87_st(f, 0), *x87_st(f, 1), in->op != 0, x87_ctl_of(f)), 2);
  DISPATCH_NEXT(c, in);
}

/* DB F0+i: FCOMI; DF F0+i: FCOMIP; DB E8+i, DF E8+i: FUCOMI(P) (in->op 1).
 * ZF, PF, CF take what FCOM puts in C3, C2, C0; OF, SF, AF are cleared; C0-C3 do not
 * change (but for C1 = 0 on a stack fault). */
void op_x87_fcomi(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  uint16_t hsw;
  bool done;
  if (x87_empty(f, 0) || x87_empty(f, in->rm)) {
    done = x87_underflow(f);
    hsw = X87_C0 | X87_C2 | X87_C3;
  } else {
    hsw = XH(c, compare, *x87_st(f, 0), *x87_st(f, in->rm), in->op != 0, x87_ctl_of(f));
    done = x87_commit(f, hsw, 0);
  }
  /* The flags are set even when an unmasked exception stops the pop. */
  uint64_t fl = (hsw & X87_C3 ? F_ZF : 0) | (hsw & X87_C2 ? F_PF : 0) | (hsw & X87_C0 ? F_CF : 0);
  flags_update(c, F_ARITH, fl);
  if (done) pop_n(f, in->aux);
  DISPATCH_NEXT(c, in);
}

/* D9 E4: compare ST(0) with 0.0. */
void op_x87_ftst(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  if (x87_empty(f, 0)) {
    arith_underflow(f, X87_COM, 0, 0);
    return;
  }
  compare_done(f, XH(c, test, *x87_st(f, 0), x87_ctl_of(f)), 0);
  DISPATCH_NEXT(c, in);
}

/* D9 E5: classify ST(0) into C3 C2 C0, its sign into C1; no exceptions. */
void op_x87_fxam(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  uint16_t cc;
  if (x87_empty(f, 0)) {
    /* An empty register still shows the sign bit of what it holds. */
    uint8_t b[10];
    x87_to_ext80(*x87_st(f, 0), b);
    cc = X87_C3 | X87_C0 | (b[9] & 0x80 ? X87_C1 : 0);
  } else {
    cc = XH(c, examine, *x87_st(f, 0)) & X87_CC;
  }
  f->sw = (uint16_t)((f->sw & ~X87_CC) | cc);
  DISPATCH_NEXT(c, in);
}
