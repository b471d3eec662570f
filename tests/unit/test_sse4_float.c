/* test_sse4_float.c: the SSE3 and SSE4.1 floating-point instructions (HADD/HSUB,
 * ADDSUB, ROUNDxx, DPPS/DPPD) against the host CPU through both floating-point tiers:
 * results and MXCSR flags under every rounding mode with DAZ/FTZ and special values,
 * every imm8, #XM faults with exceptions unmasked, and misaligned memory. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <immintrin.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"
#include "dp_model.h"

/* Form builders: xmm, xmm/m128 (aligned) unless stated; later designators in a form
 * override the builder's defaults. */
#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
#define OP3A(o) .opc = {0x3A, o}, .nopc = 2, .imm8 = 1
#define F0F(n, p, o, v, ...) {.name = n, .pfx = p, OP1(o), .modrm = MR_BOTH, .ext = -1, \
                              .align16 = 1, .vals = v, ##__VA_ARGS__}
#define F3A(n, o, v, ...) {.name = n, .pfx = 0x66, OP3A(o), .modrm = MR_BOTH, .ext = -1, \
                           .align16 = 1, .vals = v, ##__VA_ARGS__}
#define COUNT(a) (sizeof(a) / sizeof *(a))

static const Form sse3_float_forms[] = {
  F0F("haddps", 0xF2, 0x7C, VAL_F32), F0F("haddpd", 0x66, 0x7C, VAL_F64),
  F0F("hsubps", 0xF2, 0x7D, VAL_F32), F0F("hsubpd", 0x66, 0x7D, VAL_F64),
  F0F("addsubps", 0xF2, 0xD0, VAL_F32), F0F("addsubpd", 0x66, 0xD0, VAL_F64),
};

static const Form sse41_float_forms[] = {
  F3A("roundps", 0x08, VAL_F32), F3A("roundpd", 0x09, VAL_F64),
  F3A("roundss", 0x0A, VAL_F32, .align16 = 0), F3A("roundsd", 0x0B, VAL_F64, .align16 = 0),
  F3A("dpps", 0x40, VAL_F32), F3A("dppd", 0x41, VAL_F64),
};

/* Values near integers and halves, which random floats rarely are: ROUNDxx's ties and
 * exact cases. Applied to a third of the cases of the rounding forms. */
static void near_integers_hook(const Form *f, MachineState *s) {
  if (f->opc[0] != 0x3A || f->opc[1] > 0x0B || rnd_below(3)) return;
  uint8_t *src = case_mem ? case_mem : s->xmm[case_rm].b;
  bool f64 = f->vals == VAL_F64;
  for (unsigned i = 0; i < (f64 ? 2u : 4u); i++) {
    double v = (double)((int)rnd_below(64) - 32) / (rnd_below(2) ? 2 : 4);
    if (rnd_below(8) == 0) v = (double)(rnd() >> (f64 ? 11 : 40)) + 0.5; /* large ties */
    if (f64) {
      memcpy(src + 8 * i, &v, 8);
    } else {
      float x = (float)v;
      memcpy(src + 4 * i, &x, 4);
    }
  }
}

/* Runs every form through the current tier: the imm8 forms once for each of the 256
 * values, with four times the usual cases shared among them. */
static unsigned run_table(const Form *forms, size_t n, uint32_t unmask) {
  harness_begin();
  unsigned bad = 0, iterations = diff_iterations();
  case_hook = near_integers_hook;
  model_rule = dot_product_nan_rule;
  for (size_t i = 0; i < n; i++) {
    const Form *f = &forms[i];
    unsigned failures = 0;
    if (f->imm8) {
      unsigned per_imm = (iterations + 255) / 256 * 4;
      for (int imm = 0; imm < 256 && !failures; imm++) {
        forced_imm = imm;
        failures += run_form(f, per_imm, unmask, NULL);
      }
      forced_imm = -1;
    } else {
      failures = run_form(f, iterations, unmask, NULL);
    }
    if (failures) {
      fprintf(stderr, "FAIL %s\n", f->name);
      bad++;
    }
  }
  case_hook = NULL;
  fprintf(stderr, "%zu forms x %u cases (imm8 forms: 256 x %u; %s tier): %u forms differ "
          "from the host CPU\n", n, iterations, (iterations + 255) / 256 * 4,
          test_machine()->fp_tier == FP_TIER_HOST ? "host" : "portable", bad);
  model_report("  DPPS/DPPD with NaN operands");
  model_rule = NULL;
  return bad;
}

static unsigned run_both_tables(enum FpTier tier, uint32_t unmask) {
  test_machine()->fp_tier = tier;
  unsigned bad = run_table(sse3_float_forms, COUNT(sse3_float_forms), unmask) +
                 run_table(sse41_float_forms, COUNT(sse41_float_forms), unmask);
  test_machine()->fp_tier = FP_TIER_HOST;
  return bad;
}

/* As in test_sse_float.c: any of the six exceptions unmasked. */
static const uint32_t unmaskable = MXCSR_FLAGS;

static void test_sse4_float_host_tier_matches_host(void **state) {
  (void)state;
  assert_int_equal(run_both_tables(FP_TIER_HOST, 0), 0);
}

static void test_sse4_float_portable_tier_matches_host(void **state) {
  (void)state;
  assert_int_equal(run_both_tables(FP_TIER_PORTABLE, 0), 0);
}

static void test_sse4_float_unmasked_exceptions_fault_like_host(void **state) {
  (void)state;
  assert_int_equal(run_both_tables(FP_TIER_HOST, unmaskable), 0);
}

static void test_sse4_float_portable_unmasked_exceptions_fault_like_host(void **state) {
  (void)state;
  assert_int_equal(run_both_tables(FP_TIER_PORTABLE, unmaskable), 0);
}

static void test_sse4_float_misaligned_operands_fault_like_host(void **state) {
  (void)state;
  model_rule = dot_product_nan_rule;
  unsigned bad = run_forms_misaligned(sse3_float_forms, COUNT(sse3_float_forms), NULL) +
                 run_forms_misaligned(sse41_float_forms, COUNT(sse41_float_forms), NULL);
  model_rule = NULL;
  assert_int_equal(bad, 0);
}

int main(void) {
  cpu_model_print_path(stderr, "test_sse4_float");
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sse4_float_host_tier_matches_host),
    cmocka_unit_test(test_sse4_float_portable_tier_matches_host),
    cmocka_unit_test(test_sse4_float_unmasked_exceptions_fault_like_host),
    cmocka_unit_test(test_sse4_float_portable_unmasked_exceptions_fault_like_host),
    cmocka_unit_test(test_sse4_float_misaligned_operands_fault_like_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#include "test_machine.h"
#endif
