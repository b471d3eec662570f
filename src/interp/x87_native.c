/* x87_native.c: the host tier of x87_host.h on x86-64: each primitive runs the guest's
 * operation on the host's own x87, so values, exception flags and C0-C3 are the CPU's. */
#ifdef __x86_64__

#include "x87.h"
#include "x87_host.h"

/* Around every operation: keep the host control word, load the guest's, clear the flags,
 * run, read the status word, clear the flags again, restore the host's. The guest's own
 * exception masks apply, so an unmasked exception gets the CPU's unmasked response
 * (operands unchanged, or a wrapped exponent for overflow and underflow); the FNCLEX
 * right after it keeps the host from ever taking the #MF. The operation sits inside the
 * same asm statement, so the compiler cannot move it outside the window, and its status
 * bits (C1 in particular) are read before compiler-generated x87 code changes them. */
#define ENTER "fnstcw %[saved]\n\tfldcw %[gcw]\n\tfnclex\n\t"
#define LEAVE "\n\tfnstsw %[hsw]\n\tfnclex\n\tfldcw %[saved]"
#define CTL [saved] "+m"(saved), [hsw] "+m"(hsw)
#define GCW [gcw] "m"(gcw)
#define LOCALS(cw) uint16_t saved = 0, hsw = 0, gcw = (cw)

/* ST(0) = ST(0) op ST(1), the D8 register form with the destination's role kept. */
#define ARITH_ST(mn) __asm__ volatile(ENTER mn " %%st(1), %%st" LEAVE : "+t"(r), CTL : "u"(s), GCW)
#define ARITH_MEM(mn) __asm__ volatile(ENTER mn " %[src]" LEAVE : "+t"(r), CTL : [src] "m"(s), GCW)

uint16_t x87_native_arith(unsigned op, long double *d, long double s, uint16_t cw) {
  LOCALS(cw);
  long double r = *d;
  switch (op) {
  case X87_ADD: ARITH_ST("fadd"); break;
  case X87_MUL: ARITH_ST("fmul"); break;
  case X87_SUB: ARITH_ST("fsub"); break;
  case X87_SUBR: ARITH_ST("fsubr"); break;
  case X87_DIV: ARITH_ST("fdiv"); break;
  default: ARITH_ST("fdivr"); break;
  }
  *d = r;
  return hsw;
}

/* The memory forms run as memory forms: converting the operand first would change
 * which NaN an SNaN/QNaN pair produces. */
uint16_t x87_native_arith_f32(unsigned op, long double *d, float s, uint16_t cw) {
  LOCALS(cw);
  long double r = *d;
  switch (op) {
  case X87_ADD: ARITH_MEM("fadds"); break;
  case X87_MUL: ARITH_MEM("fmuls"); break;
  case X87_SUB: ARITH_MEM("fsubs"); break;
  case X87_SUBR: ARITH_MEM("fsubrs"); break;
  case X87_DIV: ARITH_MEM("fdivs"); break;
  default: ARITH_MEM("fdivrs"); break;
  }
  *d = r;
  return hsw;
}

uint16_t x87_native_arith_f64(unsigned op, long double *d, double s, uint16_t cw) {
  LOCALS(cw);
  long double r = *d;
  switch (op) {
  case X87_ADD: ARITH_MEM("faddl"); break;
  case X87_MUL: ARITH_MEM("fmull"); break;
  case X87_SUB: ARITH_MEM("fsubl"); break;
  case X87_SUBR: ARITH_MEM("fsubrl"); break;
  case X87_DIV: ARITH_MEM("fdivl"); break;
  default: ARITH_MEM("fdivrl"); break;
  }
  *d = r;
  return hsw;
}

uint16_t x87_native_compare(long double a, long double b, bool quiet, uint16_t cw) {
  LOCALS(cw);
  if (quiet) __asm__ volatile(ENTER "fucom %%st(1)" LEAVE : CTL : "t"(a), "u"(b), GCW);
  else __asm__ volatile(ENTER "fcom %%st(1)" LEAVE : CTL : "t"(a), "u"(b), GCW);
  return hsw;
}

uint16_t x87_native_compare_f32(long double a, float s, uint16_t cw) {
  LOCALS(cw);
  __asm__ volatile(ENTER "fcoms %[src]" LEAVE : CTL : "t"(a), [src] "m"(s), GCW);
  return hsw;
}

uint16_t x87_native_compare_f64(long double a, double s, uint16_t cw) {
  LOCALS(cw);
  __asm__ volatile(ENTER "fcoml %[src]" LEAVE : CTL : "t"(a), [src] "m"(s), GCW);
  return hsw;
}

uint16_t x87_native_test(long double a, uint16_t cw) {
  LOCALS(cw);
  __asm__ volatile(ENTER "ftst" LEAVE : CTL : "t"(a), GCW);
  return hsw;
}

uint16_t x87_native_examine(long double a) {
  LOCALS(X87_CW_DEFAULT);
  __asm__ volatile(ENTER "fxam" LEAVE : CTL : "t"(a), GCW);
  return hsw;
}

/* An unmasked exception can stop an instruction before it pushes or pops. These asm
 * bodies compare TOP before and after, and push a copy or pop one when it did not move,
 * so that they always leave the registers their constraints promise; the caller
 * ignores the results of an instruction that did not complete. */
#define BEFORE "fnstsw %%ax\n\tmovw %%ax, %%dx\n\t"
#define AFTER "\n\tfnstsw %%ax\n\tfnclex\n\tfldcw %[saved]\n\txorw %%ax, %%dx\n\ttestw $0x3800, %%dx\n\tjnz 1f\n\t"
#define PUSHING(body, ...)                                                              \
  __asm__ volatile(ENTER BEFORE body AFTER "fld %%st(0)\n1:"                             \
                   : "=t"(r), "=&a"(hsw), [saved] "+m"(saved)                           \
                   : __VA_ARGS__, GCW                                                   \
                   : "dx", "cc")

uint16_t x87_native_load_f32(long double *d, float s, uint16_t cw) {
  LOCALS(cw);
  long double r;
  PUSHING("flds %[src]", [src] "m"(s));
  *d = r;
  return hsw;
}

uint16_t x87_native_load_f64(long double *d, double s, uint16_t cw) {
  LOCALS(cw);
  long double r;
  PUSHING("fldl %[src]", [src] "m"(s));
  *d = r;
  return hsw;
}

uint16_t x87_native_store_f32(float *d, long double s, uint16_t cw) {
  LOCALS(cw);
  float v;
  __asm__ volatile(ENTER "fsts %[dst]" LEAVE : [dst] "=m"(v), CTL : "t"(s), GCW);
  *d = v;
  return hsw;
}

uint16_t x87_native_store_f64(double *d, long double s, uint16_t cw) {
  LOCALS(cw);
  double v;
  __asm__ volatile(ENTER "fstl %[dst]" LEAVE : [dst] "=m"(v), CTL : "t"(s), GCW);
  *d = v;
  return hsw;
}

/* FISTTP and the 64-bit FISTP only exist as popping forms: they store a copy. */
#define STORE_INT(mn) \
  __asm__ volatile(ENTER mn " %[dst]" LEAVE : [dst] "=m"(v), CTL : "t"(s), GCW)
#define STORE_INT_POP(mn)                                                               \
  __asm__ volatile(ENTER "fld %%st(0)\n\t" BEFORE mn " %[dst]" AFTER "fstp %%st(0)\n1:"   \
                   : [dst] "=m"(v), "=&a"(hsw), [saved] "+m"(saved)                     \
                   : "t"(s), GCW                                                        \
                   : "dx", "cc")

uint16_t x87_native_store_i16(int16_t *d, long double s, uint16_t cw, bool trunc) {
  LOCALS(cw);
  int16_t v;
  if (trunc) STORE_INT_POP("fisttps");
  else STORE_INT("fists");
  *d = v;
  return hsw;
}

uint16_t x87_native_store_i32(int32_t *d, long double s, uint16_t cw, bool trunc) {
  LOCALS(cw);
  int32_t v;
  if (trunc) STORE_INT_POP("fisttpl");
  else STORE_INT("fistl");
  *d = v;
  return hsw;
}

uint16_t x87_native_store_i64(int64_t *d, long double s, uint16_t cw, bool trunc) {
  LOCALS(cw);
  int64_t v;
  if (trunc) STORE_INT_POP("fisttpll");
  else STORE_INT_POP("fistpll");
  *d = v;
  return hsw;
}

#define CONSTANT(mn) __asm__ volatile(ENTER mn LEAVE : "=t"(r), CTL : GCW)

/* The constants are rounded from the CPU's internal 66-bit values by RC. */
uint16_t x87_native_constant(unsigned op, long double *d, uint16_t cw) {
  LOCALS(cw);
  long double r;
  switch (op) {
  case X87_FLD1: CONSTANT("fld1"); break;
  case X87_FLDL2T: CONSTANT("fldl2t"); break;
  case X87_FLDL2E: CONSTANT("fldl2e"); break;
  case X87_FLDPI: CONSTANT("fldpi"); break;
  case X87_FLDLG2: CONSTANT("fldlg2"); break;
  case X87_FLDLN2: CONSTANT("fldln2"); break;
  default: CONSTANT("fldz"); break;
  }
  *d = r;
  return hsw;
}

#define UNARY(mn) __asm__ volatile(ENTER mn LEAVE : "+t"(r), CTL : GCW)

uint16_t x87_native_unary(unsigned op, long double *x, uint16_t cw) {
  LOCALS(cw);
  long double r = *x;
  switch (op) {
  case X87_F2XM1: UNARY("f2xm1"); break;
  case X87_FSQRT: UNARY("fsqrt"); break;
  case X87_FRNDINT: UNARY("frndint"); break;
  case X87_FSIN: UNARY("fsin"); break;
  default: UNARY("fcos"); break;
  }
  *x = r;
  return hsw;
}

#define BINARY(mn) __asm__ volatile(ENTER mn LEAVE : "+t"(r), CTL : "u"(st1), GCW)

uint16_t x87_native_binary(unsigned op, long double *st0, long double st1, uint16_t cw) {
  LOCALS(cw);
  long double r = *st0;
  switch (op) {
  case X87_FPREM: BINARY("fprem"); break;
  case X87_FPREM1: BINARY("fprem1"); break;
  default: BINARY("fscale"); break;
  }
  *st0 = r;
  return hsw;
}

/* These pop ST(1)'s input: the asm consumes both registers and leaves one result. */
#define BINARY_POP(mn)                                                                  \
  __asm__ volatile(ENTER BEFORE mn AFTER "fstp %%st(0)\n1:"                              \
                   : "=t"(res), "=&a"(hsw), [saved] "+m"(saved)                         \
                   : "0"(st0), "u"(st1), GCW                                            \
                   : "st(1)", "dx", "cc")

uint16_t x87_native_binary_pop(unsigned op, long double *r, long double st0, long double st1,
                               uint16_t cw) {
  LOCALS(cw);
  long double res;
  switch (op) {
  case X87_FYL2X: BINARY_POP("fyl2x"); break;
  case X87_FYL2XP1: BINARY_POP("fyl2xp1"); break;
  default: BINARY_POP("fpatan"); break;
  }
  *r = res;
  return hsw;
}

/* FPTAN and FSINCOS push only when in range (C2 clear); none of the three pushes after
 * an unmasked exception stopped it. */
#define SPLIT(mn)                                                                       \
  __asm__ volatile(ENTER BEFORE mn AFTER "fld %%st(0)\n1:"                               \
                   : "=t"(top), "=u"(below), "=&a"(hsw), [saved] "+m"(saved)            \
                   : "0"(*st0), GCW                                                     \
                   : "dx", "cc")

uint16_t x87_native_split(unsigned op, long double *st0, long double *push, uint16_t cw) {
  LOCALS(cw);
  long double top, below;
  switch (op) {
  case X87_FPTAN: SPLIT("fptan"); break;
  case X87_FSINCOS: SPLIT("fsincos"); break;
  default: SPLIT("fxtract"); break;
  }
  *st0 = below;
  *push = top;
  return hsw;
}

#endif
