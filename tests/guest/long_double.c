/* long_double.c: x87 arithmetic as C programs reach it through long double, under every
 * rounding mode and precision control: the basic operations, the conversions, FPREM,
 * FRNDINT, FSCALE and FXTRACT behind fmodl, rintl, ldexpl and frexpl, and the exception
 * flags they raise. Each result is printed exactly (%La) or folded into a checksum, so
 * any difference in any bit shows in the output. */
#include <fenv.h>
#include <fpu_control.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test_env.h"

static uint64_t state = 0x10D0B1Eull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* A long double from random bits: every exponent class, biased toward ordinary values. */
static long double value(void) {
  uint64_t m = next() | 1ull << 63, r = next();
  unsigned sign = (r & 1) << 15, e;
  switch (r >> 1 & 7) {
  case 0: e = (unsigned)(r >> 8) % 0x7FFF; break;               /* anywhere */
  case 1: e = (unsigned)(r >> 8) % 64 + 1; break;               /* near underflow */
  case 2: e = 0x7FFE - (unsigned)(r >> 8) % 64; break;          /* near overflow */
  case 3: e = 0; m >>= (r >> 8) % 63 + 1; break;                /* denormal */
  case 4: m &= ~0ull << 40; e = 0x3FFF + (unsigned)(r >> 8) % 40 - 20; break; /* short */
  default: e = 0x3FFF + (unsigned)(r >> 8) % 80 - 40; break;
  }
  uint8_t b[16] = {0};
  memcpy(b, &m, 8);
  b[8] = (uint8_t)(e | sign);
  b[9] = (uint8_t)((e | sign) >> 8);
  long double v;
  memcpy(&v, b, sizeof v);
  return v;
}

static uint64_t sum = 0;
static void fold(const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) sum = (sum ^ b[i]) * 0x100000001B3ull;
}
static void fold_ld(long double v) { fold(&v, 10); }

static void set_precision(unsigned pc) {
  fpu_control_t cw;
  _FPU_GETCW(cw);
  cw = (fpu_control_t)((cw & ~0x300u) | pc << 8);
  _FPU_SETCW(cw);
}

static const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
static const char *mode_names[] = {"nearest", "down", "up", "zero"};
static const unsigned precisions[] = {0, 2, 3};

int main(void) {
  /* Cases per rounding mode and precision: a quarter where x64emu is slow (test_env.h:
   * under qemu, the portable x87 of x64emu's aarch64 build runs some thirty times slower);
   * guest.long_double_portable runs them all through the same code on x86-64. */
  const int cases = fewer_rounds() ? 1000 : 4000;
  for (unsigned p = 0; p < 3; p++) {
    for (unsigned m = 0; m < 4; m++) {
      set_precision(precisions[p]);
      fesetround(modes[m]);
      sum = 0;
      for (int i = 0; i < cases; i++) {
        volatile long double a = value(), b = value();
        feclearexcept(FE_ALL_EXCEPT);
        fold_ld(a + b);
        fold_ld(a - b);
        fold_ld(a * b);
        fold_ld(a / b);
        fold_ld(sqrtl(fabsl(a)));
        fold(&(int){fetestexcept(FE_ALL_EXCEPT)}, sizeof(int));
        feclearexcept(FE_ALL_EXCEPT);
        fold_ld(fmodl(a, b));
        fold_ld(remainderl(a, b));
        fold_ld(rintl(a));
        fold_ld(ldexpl(a, (int)(next() % 400) - 200));
        int e;
        fold_ld(frexpl(a, &e));
        fold(&e, sizeof e);
        float f = (float)a;
        double d = (double)a;
        fold(&f, sizeof f);
        fold(&d, sizeof d);
        long long ll = llrintl(a);
        fold(&ll, sizeof ll);
        fold(&(int){fetestexcept(FE_ALL_EXCEPT)}, sizeof(int));
      }
      volatile long double x = 1.0L / 3.0L, y = 2.0L / 3.0L;
      printf("pc=%u %-7s checksum %016llx  1/3=%La 1/3+2/3=%La sqrt(1/3)=%La\n", precisions[p],
             mode_names[m], (unsigned long long)sum, x, x + y, sqrtl(x));
    }
  }
  set_precision(3);
  fesetround(FE_TONEAREST);
  /* A few values printed in decimal, as programs print them. */
  volatile long double third = 1.0L / 3.0L, big = 1e4000L, small = 1e-4940L;
  printf("%.21Lg %.21Lg %.21Lg %.21Lg\n", third, big * third, small / 3, sqrtl(big));
  printf("%.21Lg %.21Lg %.21Lg\n", fmodl(big, third), remainderl(1e30L, third), rintl(2.5L));
  return 0;
}
