/* x87_native.c: the host tier of x87_host.h on x86-64: each primitive runs the guest's
 * operation on the host's own x87, so values, exception flags and C0-C3 are the CPU's. */
#ifdef __x86_64__

#include "x87.h"
#include "x87_host.h"

/* The window around one operation. The host runs it under the guest's control word
 * (loaded only when it differs from the host's), so rounding, precision and exception
 * masks are the guest's: an unmasked exception gets the CPU's unmasked response
 * (operands unchanged, or a wrapped exponent for overflow and underflow), and an FNCLEX
 * right after it keeps the host from ever taking the #MF.
 *
 * FNCLEX costs several times the operation, so the host's exception flags are not
 * cleared before each one: they only have to be a subset of the guest's (x87_ctl), so
 * that every flag the operation leaves set is one the guest has or has just raised.
 * They are cleared when they are not, and before running with unmasked exceptions.
 *
 * The operation sits inside the asm statement that reads the status word, so the
 * compiler cannot move it out of the window, and its status bits (C1 in particular)
 * are read before compiler-generated x87 code changes them. */
typedef struct Window {
  uint16_t saved, gcw;
  uint32_t swap; /* the guest's control word differs from the host's */
} Window;

static inline Window open_window(uint32_t ctl) {
  Window w;
  uint16_t hsw;
  __asm__ volatile("fnstcw %0\n\tfnstsw %1" : "=m"(w.saved), "=m"(hsw));
  if ((hsw & X87_EXC & ~(ctl >> 16)) || (~ctl & X87_EXC)) __asm__ volatile("fnclex");
  w.gcw = (uint16_t)ctl;
  w.swap = w.gcw != w.saved;
  return w;
}

#define ENTER "testl %[swap], %[swap]\n\tjz 7f\n\tfldcw %[gcw]\n7:\n\t"
#define LEAVE                                                                          \
  "\n\tfnstsw %%ax\n\ttestb $0x80, %%al\n\tjz 8f\n\tfnclex\n8:\n\t"                     \
  "testl %[swap], %[swap]\n\tjz 9f\n\tfldcw %[saved]\n9:"
#define WINDOW [swap] "r"(w.swap), [gcw] "m"(w.gcw), [saved] "m"(w.saved)
#define OPEN(ctl)   \
  uint16_t hsw = 0; \
  Window w = open_window(ctl)

/* ST(0) = ST(0) op ST(1), the D8 register form with the destination's role kept. */
#define ARITH_ST(mn) \
  __asm__ volatile(ENTER mn " %%st(1), %%st" LEAVE : "+t"(r), "=&a"(hsw) : "u"(s), WINDOW : "cc")
#define ARITH_MEM(mn) \
  __asm__ volatile(ENTER mn " %[src]" LEAVE : "+t"(r), "=&a"(hsw) : [src] "m"(s), WINDOW : "cc")

uint16_t x87_native_arith(unsigned op, long double *d, long double s, uint32_t ctl) {
  OPEN(ctl);
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
uint16_t x87_native_arith_f32(unsigned op, long double *d, float s, uint32_t ctl) {
  OPEN(ctl);
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

uint16_t x87_native_arith_f64(unsigned op, long double *d, double s, uint32_t ctl) {
  OPEN(ctl);
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

#define COMPARE(body, ...) \
  __asm__ volatile(ENTER body LEAVE : "=&a"(hsw) : "t"(a), __VA_ARGS__, WINDOW : "cc")

uint16_t x87_native_compare(long double a, long double b, bool quiet, uint32_t ctl) {
  OPEN(ctl);
  if (quiet) COMPARE("fucom %%st(1)", "u"(b));
  else COMPARE("fcom %%st(1)", "u"(b));
  return hsw;
}

uint16_t x87_native_compare_f32(long double a, float s, uint32_t ctl) {
  OPEN(ctl);
  COMPARE("fcoms %[src]", [src] "m"(s));
  return hsw;
}

uint16_t x87_native_compare_f64(long double a, double s, uint32_t ctl) {
  OPEN(ctl);
  COMPARE("fcoml %[src]", [src] "m"(s));
  return hsw;
}

uint16_t x87_native_test(long double a, uint32_t ctl) {
  OPEN(ctl);
  __asm__ volatile(ENTER "ftst" LEAVE : "=&a"(hsw) : "t"(a), WINDOW : "cc");
  return hsw;
}

/* FXAM raises nothing: no window. */
uint16_t x87_native_examine(long double a) {
  uint16_t hsw;
  __asm__ volatile("fxam\n\tfnstsw %%ax" : "=a"(hsw) : "t"(a));
  return hsw;
}

/* An unmasked exception can stop an instruction before it pushes or pops. These asm
 * bodies compare TOP before and after, and push a copy or pop one when it did not move,
 * so that they always leave the registers their constraints promise; the caller
 * ignores the results of an instruction that did not complete. */
#define BEFORE "fnstsw %%ax\n\tmovw %%ax, %%dx\n\t"
#define AFTER LEAVE "\n\txorw %%ax, %%dx\n\ttestw $0x3800, %%dx\n\tjnz 1f\n\t"
#define PUSHING(body, ...)                                                           \
  __asm__ volatile(ENTER BEFORE body AFTER "fld %%st(0)\n1:"                          \
                   : "=t"(r), "=&a"(hsw)                                              \
                   : __VA_ARGS__, WINDOW                                              \
                   : "dx", "cc")

uint16_t x87_native_load_f32(long double *d, float s, uint32_t ctl) {
  OPEN(ctl);
  long double r;
  PUSHING("flds %[src]", [src] "m"(s));
  *d = r;
  return hsw;
}

uint16_t x87_native_load_f64(long double *d, double s, uint32_t ctl) {
  OPEN(ctl);
  long double r;
  PUSHING("fldl %[src]", [src] "m"(s));
  *d = r;
  return hsw;
}

#define STORE(mn) \
  __asm__ volatile(ENTER mn " %[dst]" LEAVE : [dst] "=m"(v), "=&a"(hsw) : "t"(s), WINDOW : "cc")

uint16_t x87_native_store_f32(float *d, long double s, uint32_t ctl) {
  OPEN(ctl);
  float v = 0;
  STORE("fsts");
  *d = v;
  return hsw;
}

uint16_t x87_native_store_f64(double *d, long double s, uint32_t ctl) {
  OPEN(ctl);
  double v = 0;
  STORE("fstl");
  *d = v;
  return hsw;
}

/* FISTTP and the 64-bit FISTP only exist as popping forms: they store a copy. */
#define STORE_POP(mn)                                                                \
  __asm__ volatile(ENTER "fld %%st(0)\n\t" BEFORE mn " %[dst]" AFTER "fstp %%st(0)\n1:" \
                   : [dst] "=m"(v), "=&a"(hsw)                                        \
                   : "t"(s), WINDOW                                                   \
                   : "dx", "cc")

uint16_t x87_native_store_i16(int16_t *d, long double s, uint32_t ctl, bool trunc) {
  OPEN(ctl);
  int16_t v = 0;
  if (trunc) STORE_POP("fisttps");
  else STORE("fists");
  *d = v;
  return hsw;
}

uint16_t x87_native_store_i32(int32_t *d, long double s, uint32_t ctl, bool trunc) {
  OPEN(ctl);
  int32_t v = 0;
  if (trunc) STORE_POP("fisttpl");
  else STORE("fistl");
  *d = v;
  return hsw;
}

uint16_t x87_native_store_i64(int64_t *d, long double s, uint32_t ctl, bool trunc) {
  OPEN(ctl);
  int64_t v = 0;
  if (trunc) STORE_POP("fisttpll");
  else STORE_POP("fistpll");
  *d = v;
  return hsw;
}

#define CONSTANT(mn) __asm__ volatile(ENTER mn LEAVE : "=t"(r), "=&a"(hsw) : WINDOW : "cc")

/* The constants are rounded from the CPU's internal 66-bit values by RC. */
uint16_t x87_native_constant(unsigned op, long double *d, uint32_t ctl) {
  OPEN(ctl);
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

#define UNARY(mn) __asm__ volatile(ENTER mn LEAVE : "+t"(r), "=&a"(hsw) : WINDOW : "cc")

uint16_t x87_native_unary(unsigned op, long double *x, uint32_t ctl) {
  OPEN(ctl);
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

#define BINARY(mn) __asm__ volatile(ENTER mn LEAVE : "+t"(r), "=&a"(hsw) : "u"(st1), WINDOW : "cc")

uint16_t x87_native_binary(unsigned op, long double *st0, long double st1, uint32_t ctl) {
  OPEN(ctl);
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
#define BINARY_POP(mn)                                                               \
  __asm__ volatile(ENTER BEFORE mn AFTER "fstp %%st(0)\n1:"                           \
                   : "=t"(res), "=&a"(hsw)                                            \
                   : "0"(st0), "u"(st1), WINDOW                                       \
                   : "st(1)", "dx", "cc")

uint16_t x87_native_binary_pop(unsigned op, long double *r, long double st0, long double st1,
                               uint32_t ctl) {
  OPEN(ctl);
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
#define SPLIT(mn)                                                                    \
  __asm__ volatile(ENTER BEFORE mn AFTER "fld %%st(0)\n1:"                            \
                   : "=t"(top), "=u"(below), "=&a"(hsw)                               \
                   : "0"(*st0), WINDOW                                                \
                   : "dx", "cc")

uint16_t x87_native_split(unsigned op, long double *st0, long double *push, uint32_t ctl) {
  OPEN(ctl);
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
