/* test_shuffle_guest.c: the instructions that are host byte shuffles (byte_shuffles.c:
 * PSHUFB, PSHUFD, PALIGNR, PSLLDQ, PSRLDQ in their SSE, VEX.128, VEX.256 and MMX forms)
 * against the host CPU through each host tier: SSSE3's PSHUFB (or aarch64's TBL) with
 * constant index vectors, and portable C. Random registers, memory operands and
 * immediates: every PSHUFD selector, and the byte counts past 15 (PSLLDQ, PSRLDQ) and
 * past 32 (PALIGNR) that clear their result. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"
#include "crypto_guest.h"

#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
#define OP38(o) .opc = {0x38, o}, .nopc = 2
#define OP3A(o) .opc = {0x3A, o}, .nopc = 2
/* SSE: xmm, xmm/m128 (aligned) */
#define XM(n, ...) {.name = n, .pfx = 0x66, .modrm = MR_BOTH, .ext = -1, .align16 = 1, \
                    .vals = VAL_INT, ##__VA_ARGS__}
/* the byte shifts: xmm and imm8, ModRM.reg an opcode digit */
#define SHIFT(n, e, ...) {.name = n, .pfx = 0x66, OP1(0x73), .modrm = MR_REG, .ext = e, \
                          .imm8 = 1, .vals = VAL_INT, ##__VA_ARGS__}
/* MMX: mm, mm/m64 */
#define MM(n, ...) {.name = n, .modrm = MR_BOTH, .ext = -1, .reg_mm = 1, .rm_mm = 1, \
                    .vals = VAL_INT, ##__VA_ARGS__}
/* VEX.128 and VEX.256 */
#define V2(n, ...) XM(n, .align16 = 0, .vex = 1, ##__VA_ARGS__), \
                   XM(n " ymm", .align16 = 0, .vex = 1, .vex_l = 1, ##__VA_ARGS__)

static const Form sse_forms[] = {
  XM("pshufb", OP38(0x00)),
  XM("pshufd", OP1(0x70), .imm8 = 1),
  XM("palignr", OP3A(0x0F), .imm8 = 1),
  SHIFT("pslldq", 7),
  SHIFT("psrldq", 3),
  MM("pshufb mm", OP38(0x00)),
  MM("palignr mm", OP3A(0x0F), .imm8 = 1),
};
static const Form vex_forms[] = {
  V2("vpshufb", OP38(0x00)),
  V2("vpshufd", OP1(0x70), .imm8 = 1, .vex_nv = 1),
  V2("vpalignr", OP3A(0x0F), .imm8 = 1),
  V2("vpslldq", OP1(0x73), .modrm = MR_REG, .ext = 7, .imm8 = 1),
  V2("vpsrldq", OP1(0x73), .modrm = MR_REG, .ext = 3, .imm8 = 1),
};
#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* 20,000 random cases per form (unless X64EMU_DIFF_ITER says otherwise) through each
 * tier: every PSHUFD immediate many times over. */
static unsigned cases(void) { return diff_iterations_or(20000); }

static void test_sse_and_mmx_forms_match_host_through_each_tier(void **state) {
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    fprintf(stderr, "%s tier:\n", tier_name);
    assert_int_equal(run_forms_n(sse_forms, COUNT(sse_forms), cases(), 0, NULL), 0);
  }
}

static void test_vex_forms_match_host_through_each_tier(void **state) {
  if (!__builtin_cpu_supports("avx2")) {
    print_message("the host has no AVX2: nothing to compare the VEX forms with\n");
    skip();
  }
  harness_avx = true;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    fprintf(stderr, "%s tier:\n", tier_name);
    assert_int_equal(run_forms_n(vex_forms, COUNT(vex_forms), cases(), 0, NULL), 0);
  }
  harness_avx = false;
}

/* Misaligned m128 operands of the SSE forms: #GP, as on the host. */
static void test_misaligned_memory_faults_like_host(void **state) {
  unsigned bad = 0;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    bad += run_forms_misaligned(sse_forms, COUNT(sse_forms), NULL);
  }
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sse_and_mmx_forms_match_host_through_each_tier),
      cmocka_unit_test(test_vex_forms_match_host_through_each_tier),
      cmocka_unit_test(test_misaligned_memory_faults_like_host),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

#else
#include "needs_x86_64.h"
#endif
