/* fp_traps.c: SSE floating point with exceptions unmasked in MXCSR, as a program that
 * debugs its numerics with feenableexcept does: whether each operation traps, the
 * signal's si_code and the flags the signal frame's MXCSR holds, or the result and the
 * flags raised. With overflow or underflow unmasked the CPU's response is not the
 * masked one: an exact tiny result traps too, FTZ does not apply, and PE is set only if
 * the result rounded with an unbounded exponent is inexact. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

enum { PM_OFF = 1u << 12, UM_OFF = 1u << 11, OM_OFF = 1u << 10, FTZ = 1u << 15, DAZ = 1u << 6 };

static sigjmp_buf back;
static volatile uint32_t frame_mxcsr;
static volatile int frame_code;

static void on_fpe(int sig, siginfo_t *info, void *context) {
  frame_mxcsr = ((ucontext_t *)context)->uc_mcontext.fpregs->mxcsr;
  frame_code = info->si_code;
  siglongjmp(back, sig);
}

static void set_mxcsr(uint32_t v) { __asm__ volatile("ldmxcsr %0" ::"m"(v)); }
static uint32_t get_mxcsr(void) {
  uint32_t v;
  __asm__ volatile("stmxcsr %0" : "=m"(v));
  return v;
}

typedef float F4 __attribute__((vector_size(16)));
typedef double D2 __attribute__((vector_size(16)));

/* The operands, volatile so that every operation runs when the program does. */
static volatile double d_tiny = 0x1p-1070, d_half = 0.5, d_min = 0x1p-1022, d_big = 0x1p1023,
                       d_two = 2.0, d_odd_big = 0x1.0000000000001p1023, d_three = 3.0,
                       d_odd_tiny = 0x1.8p-1073, d_three_quarter_min = 0x1.8p-1023,
                       d_float_tiny = 0x1p-140, d_float_odd_tiny = 0x1.0000001p-140,
                       d_huge = 1e300, d_float_big = 0x1p127;
static volatile float f_tiny = 0x1p-140f, f_half = 0.5f, f_big = 0x1p127f, f_two = 2.0f;
static volatile F4 f4_a = {0x1p-140f, 1.0f, 0x1p-126f, 3.0f}, f4_b = {0.5f, 0.5f, 0.25f, 1.0f};
static volatile D2 d2_a = {0x1p1023, 3.0}, d2_b = {2.0, 0.5};

static volatile double d_out;
static volatile float f_out;
static volatile F4 f4_out;
static volatile D2 d2_out;

static void mul_exact_tiny(void) { d_out = d_tiny * d_half; }
static void mul_rounded_tiny(void) { d_out = d_odd_tiny * d_half; }
static void add_exact_tiny(void) { d_out = d_tiny + d_tiny; }
static void sub_exact_tiny(void) { d_out = d_min - d_three_quarter_min; }
static void div_exact_tiny(void) { d_out = d_min / 4.0; }
static void mul_overflow_exact(void) { d_out = d_big * d_two; }
static void mul_overflow_inexact(void) { d_out = d_odd_big * d_three; }
static void narrow_exact_tiny(void) { f_out = (float)d_float_tiny; }
static void narrow_inexact_tiny(void) { f_out = (float)d_float_odd_tiny; }
static void narrow_overflow(void) { f_out = (float)d_huge; }
static void narrow_overflow_exact(void) { f_out = (float)(d_float_big * 2.0); }
static void mulss_exact_tiny(void) { f_out = f_tiny * f_half; }
static void mulss_overflow_exact(void) { f_out = f_big * f_two; }
static void mulps_lanes(void) { f4_out = f4_a * f4_b; }
static void mulpd_lanes(void) { d2_out = d2_a * d2_b; }
static void min_normal(void) { d_out = d_min * 1.0; }

static const struct Case {
  const char *name;
  void (*run)(void);
} cases[] = {
  {"mulsd exact tiny", mul_exact_tiny},
  {"mulsd tiny, rounded if masked", mul_rounded_tiny},
  {"addsd exact tiny", add_exact_tiny},
  {"subsd exact tiny", sub_exact_tiny},
  {"divsd exact tiny", div_exact_tiny},
  {"mulsd overflow, exact", mul_overflow_exact},
  {"mulsd overflow, inexact", mul_overflow_inexact},
  {"cvtsd2ss exact tiny", narrow_exact_tiny},
  {"cvtsd2ss inexact tiny", narrow_inexact_tiny},
  {"cvtsd2ss overflow", narrow_overflow},
  {"cvtsd2ss overflow, exact", narrow_overflow_exact},
  {"mulss exact tiny", mulss_exact_tiny},
  {"mulss overflow, exact", mulss_overflow_exact},
  {"mulps, one lane exact tiny", mulps_lanes},
  {"mulpd, one lane overflows", mulpd_lanes},
  {"mulsd smallest normal", min_normal},
};

static const struct Mode {
  const char *name;
  uint32_t mxcsr;
} modes[] = {
  {"UM", 0x1F80 & ~UM_OFF},
  {"OM", 0x1F80 & ~OM_OFF},
  {"OM UM", 0x1F80 & ~(OM_OFF | UM_OFF)},
  {"UM PM", 0x1F80 & ~(UM_OFF | PM_OFF)},
  {"UM FTZ", (0x1F80 & ~UM_OFF) | FTZ},
  {"UM DAZ", (0x1F80 & ~UM_OFF) | DAZ},
  {"UM up", (0x1F80 & ~UM_OFF) | 2u << 13},
  {"masked FTZ", 0x1F80 | FTZ},
};

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fpe;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGFPE, &sa, NULL);
  for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      printf("%-10s %-30s ", modes[m].name, cases[i].name);
      if (!sigsetjmp(back, 1)) {
        d_out = 0, f_out = 0, f4_out = (F4){0, 0, 0, 0}, d2_out = (D2){0, 0};
        set_mxcsr(modes[m].mxcsr);
        cases[i].run();
        uint32_t flags = get_mxcsr() & 0x3F;
        set_mxcsr(0x1F80);
        F4 f4 = f4_out;
        D2 d2 = d2_out;
        printf("flags %02x  %a %a  %a %a %a %a  %a %a\n", flags, d_out, (double)f_out,
               (double)f4[0], (double)f4[1], (double)f4[2], (double)f4[3], d2[0], d2[1]);
      } else {
        set_mxcsr(0x1F80);
        printf("SIGFPE code %d  flags %02x\n", frame_code, frame_mxcsr & 0x3F);
      }
    }
  }
  return 0;
}
