/* test_sse_float.c: SSE/SSE2 floating-point arithmetic, compares and conversions against
 * the host CPU, through both floating-point tiers: results, MXCSR flags under every
 * rounding mode with DAZ/FTZ, RFLAGS of the compares, and #XM faults when exceptions
 * are unmasked. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"

/* Form builders: xmm, xmm/m128 (aligned) with float values unless stated; later
 * designators in a form override the builder's defaults. */
#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
#define FX(n, p, o, v, ...) {.name = n, .pfx = p, OP1(o), .modrm = MR_BOTH, .ext = -1, \
                             .align16 = 1, .vals = v, ##__VA_ARGS__}
/* The PS, PD, SS and SD forms of one opcode (the scalar ones load m32/m64 unaligned). */
#define FOUR(n, o, ...)                                                                   \
  FX(n "ps", 0, o, VAL_F32, ##__VA_ARGS__), FX(n "pd", 0x66, o, VAL_F64, ##__VA_ARGS__), \
  FX(n "ss", 0xF3, o, VAL_F32, .align16 = 0, ##__VA_ARGS__),                            \
  FX(n "sd", 0xF2, o, VAL_F64, .align16 = 0, ##__VA_ARGS__)

static const Form float_forms[] = {
  FOUR("add", 0x58), FOUR("sub", 0x5C), FOUR("mul", 0x59), FOUR("div", 0x5E),
  FOUR("min", 0x5D), FOUR("max", 0x5F), FOUR("sqrt", 0x51), FOUR("cmp", 0xC2, .imm8 = 1),
  FX("comiss", 0, 0x2F, VAL_F32, .align16 = 0), FX("comisd", 0x66, 0x2F, VAL_F64, .align16 = 0),
  FX("ucomiss", 0, 0x2E, VAL_F32, .align16 = 0), FX("ucomisd", 0x66, 0x2E, VAL_F64, .align16 = 0),
  FX("rcpps", 0, 0x53, VAL_F32, .approx = 1),
  FX("rcpss", 0xF3, 0x53, VAL_F32, .approx = 1, .align16 = 0),
  FX("rsqrtps", 0, 0x52, VAL_F32, .approx = 1),
  FX("rsqrtss", 0xF3, 0x52, VAL_F32, .approx = 1, .align16 = 0),
};

static const Form convert_forms[] = {
  FX("cvtsi2ss r/m32", 0xF3, 0x2A, VAL_F32, .rm_gpr = 1, .align16 = 0),
  FX("cvtsi2ss r/m64", 0xF3, 0x2A, VAL_F32, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  FX("cvtsi2sd r/m32", 0xF2, 0x2A, VAL_F64, .rm_gpr = 1, .align16 = 0),
  FX("cvtsi2sd r/m64", 0xF2, 0x2A, VAL_F64, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  FX("cvtss2si r32", 0xF3, 0x2D, VAL_F32, .reg_gpr = 1, .align16 = 0),
  FX("cvtss2si r64", 0xF3, 0x2D, VAL_F32, .reg_gpr = 1, .rexw = 1, .align16 = 0),
  FX("cvttss2si r32", 0xF3, 0x2C, VAL_F32, .reg_gpr = 1, .align16 = 0),
  FX("cvttss2si r64", 0xF3, 0x2C, VAL_F32, .reg_gpr = 1, .rexw = 1, .align16 = 0),
  FX("cvtsd2si r32", 0xF2, 0x2D, VAL_F64, .reg_gpr = 1, .align16 = 0),
  FX("cvtsd2si r64", 0xF2, 0x2D, VAL_F64, .reg_gpr = 1, .rexw = 1, .align16 = 0),
  FX("cvttsd2si r32", 0xF2, 0x2C, VAL_F64, .reg_gpr = 1, .align16 = 0),
  FX("cvttsd2si r64", 0xF2, 0x2C, VAL_F64, .reg_gpr = 1, .rexw = 1, .align16 = 0),
  FX("cvtss2sd", 0xF3, 0x5A, VAL_F32, .align16 = 0),
  FX("cvtsd2ss", 0xF2, 0x5A, VAL_F64, .align16 = 0),
  FX("cvtps2pd", 0, 0x5A, VAL_F32, .align16 = 0), FX("cvtpd2ps", 0x66, 0x5A, VAL_F64),
  FX("cvtdq2ps", 0, 0x5B, VAL_INT), FX("cvtps2dq", 0x66, 0x5B, VAL_F32),
  FX("cvttps2dq", 0xF3, 0x5B, VAL_F32), FX("cvtdq2pd", 0xF3, 0xE6, VAL_INT, .align16 = 0),
  FX("cvtpd2dq", 0xF2, 0xE6, VAL_F64), FX("cvttpd2dq", 0x66, 0xE6, VAL_F64),
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint32_t lane_f32(const Xmm *x, unsigned i) { return x->d[i]; }

static bool approx_close(uint32_t native, uint32_t emulated) {
  if (native == emulated) return true;
  float n, e;
  memcpy(&n, &native, 4);
  memcpy(&e, &emulated, 4);
  if (isnan(n) || isnan(e) || isinf(n) || isinf(e)) return false;
  /* Either one flushed a result at the bottom of the normal range. */
  if (n == 0 || e == 0)
    return fabsf(n) < 0x1p-125f && fabsf(e) < 0x1p-125f && signbit(n) == signbit(e);
  return fabsf(e - n) <= fabsf(n) * 0x1p-10f; /* both within 1.5 * 2^-12 of 1/x */
}

/* The portable tier's RCP/RSQRT estimates are not Intel's table: lanes within the
 * architectural error of the host's are accepted. */
static void reconcile_estimates(const Form *f, const MachineState *nat, MachineState *emu) {
  if (!f->approx || test_machine()->fp_tier != FP_TIER_PORTABLE) return;
  unsigned lanes = f->pfx == 0xF3 ? 1 : 4;
  Xmm *d = &emu->xmm[case_reg];
  for (unsigned i = 0; i < lanes; i++)
    if (approx_close(lane_f32(&nat->xmm[case_reg], i), lane_f32(d, i)))
      d->d[i] = nat->xmm[case_reg].d[i];
}

static unsigned run_both_tables(uint32_t unmask) {
  return run_forms(float_forms, COUNT(float_forms), unmask, reconcile_estimates) +
         run_forms(convert_forms, COUNT(convert_forms), unmask, reconcile_estimates);
}

static void test_sse_float_host_tier_matches_host(void **state) {
  (void)state;
  test_machine()->fp_tier = FP_TIER_HOST;
  assert_int_equal(run_both_tables(0), 0);
}

static void test_sse_float_portable_tier_matches_host(void **state) {
  (void)state;
  test_machine()->fp_tier = FP_TIER_PORTABLE;
  unsigned bad = run_both_tables(0);
  test_machine()->fp_tier = FP_TIER_HOST;
  assert_int_equal(bad, 0);
}

/* Unmasked exceptions fault with SIGFPE, the kernel's si_code, the flags the CPU sets
 * and the destination untouched; with overflow or underflow unmasked, the CPU's trapping
 * response too: PE from the result rounded with an unbounded exponent, and a fault on an
 * exact tiny result (sse_fp_soft.c). */
static const uint32_t unmaskable = MXCSR_FLAGS;

static void test_sse_float_unmasked_exceptions_fault_like_host(void **state) {
  (void)state;
  test_machine()->fp_tier = FP_TIER_HOST;
  assert_int_equal(run_both_tables(unmaskable), 0);
}

static void test_sse_float_portable_unmasked_exceptions_fault_like_host(void **state) {
  (void)state;
  test_machine()->fp_tier = FP_TIER_PORTABLE;
  unsigned bad = run_both_tables(unmaskable);
  test_machine()->fp_tier = FP_TIER_HOST;
  assert_int_equal(bad, 0);
}

static void test_sse_float_misaligned_operands_fault_like_host(void **state) {
  (void)state;
  test_machine()->fp_tier = FP_TIER_HOST;
  unsigned bad = run_forms_misaligned(float_forms, COUNT(float_forms), reconcile_estimates) +
                 run_forms_misaligned(convert_forms, COUNT(convert_forms), reconcile_estimates);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sse_float_host_tier_matches_host),
    cmocka_unit_test(test_sse_float_portable_tier_matches_host),
    cmocka_unit_test(test_sse_float_unmasked_exceptions_fault_like_host),
    cmocka_unit_test(test_sse_float_portable_unmasked_exceptions_fault_like_host),
    cmocka_unit_test(test_sse_float_misaligned_operands_fault_like_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#include "test_machine.h"
#endif
