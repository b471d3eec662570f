/* test_cpu_model_sets.c: the unimplemented-instruction message names the instruction set
 * the CPU model lacks, for encodings taken from the Intel SDM; instructions of the model
 * (SSE and MMX) name none. And the CPUID bits (the SDM's positions) of the feature sets
 * --cpu takes away and gives back together: XSAVE with OSXSAVE and its extensions, the
 * x86-64-v2 model, and AVX with its dependents and the AVX state component. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "interp/cpuid.h"

typedef struct Sample {
  const char *what;
  uint8_t bytes[8];
  unsigned n;
  const char *says; /* a word the message must hold, or NULL for no message */
} Sample;

static const Sample samples[] = {
    {"vxorps xmm6, xmm6, xmm6 (VEX.128.0F 57) under --cpu=-avx", {0xc5, 0xc8, 0x57, 0xf6}, 4, "AVX"},
    {"vpxor ymm0, ymm0, ymm0 (3-byte VEX) under --cpu=-avx2", {0xc4, 0xe1, 0x7d, 0xef, 0xc0}, 5, "AVX2"},
    {"vgf2p8affineqb xmm0, xmm1, xmm2, 0 (GFNI's VEX form)", {0xc4, 0xe3, 0xf1, 0xce, 0xc2, 0x00}, 6, "VEX"},
    {"vxorps zmm0, zmm0, zmm0 (EVEX)", {0x62, 0xf1, 0x7c, 0x48, 0x57, 0xc0}, 6, "AVX-512"},
    {"sha1rnds4 xmm0, xmm1, 0 (0F 3A CC) under --cpu=-sha", {0x0f, 0x3a, 0xcc, 0xc1, 0x00}, 5, "SHA"},
    {"sha256rnds2 xmm2, xmm1 (0F 38 CB) under --cpu=-sha", {0x0f, 0x38, 0xcb, 0xd1}, 4, "SHA"},
    {"adcx eax, ecx (66 0F 38 F6) under --cpu=-adx", {0x66, 0x0f, 0x38, 0xf6, 0xc1}, 5, "ADX"},
    {"adox rax, rcx (F3 REX.W 0F 38 F6) under --cpu=-adx", {0xf3, 0x48, 0x0f, 0x38, 0xf6, 0xc1}, 6, "ADX"},
    {"andn eax, ecx, edx (VEX.LZ.0F38 F2) under --cpu=-bmi1", {0xc4, 0xe2, 0x70, 0xf2, 0xc2}, 5, "BMI1"},
    {"rorx rax, rcx, 3 (VEX.LZ.F2.0F3A F0) under --cpu=-bmi2", {0xc4, 0xe3, 0xfb, 0xf0, 0xc1, 0x03}, 6, "BMI2"},
    {"rdrand eax (0F C7 /6)", {0x0f, 0xc7, 0xf0}, 3, "RDRAND"},
    {"rdseed eax (0F C7 /7)", {0x0f, 0xc7, 0xf8}, 3, "RDSEED"},
    {"xsave [rax] (0F AE /4)", {0x0f, 0xae, 0x20}, 3, "XSAVE"},
    {"xgetbv (0F 01 D0)", {0x0f, 0x01, 0xd0}, 3, "XSAVE"},
    {"emms (0F 77): MMX", {0x0f, 0x77}, 2, NULL},
    {"paddb mm0, mm1 (0F FC): MMX", {0x0f, 0xfc, 0xc1}, 3, NULL},
    {"pshufb mm0, mm1 (0F 38 00): SSSE3 on MMX", {0x0f, 0x38, 0x00, 0xc1}, 4, NULL},
    {"pfadd mm0, mm1 (3DNow!: 0F 0F ib 9E)", {0x0f, 0x0f, 0xc1, 0x9e}, 4, "3DNow"},
    {"paddb xmm0, xmm1 (66 0F FC): SSE2", {0x66, 0x0f, 0xfc, 0xc1}, 4, NULL},
    {"pshufb xmm0, xmm1 (66 0F 38 00): SSSE3", {0x66, 0x0f, 0x38, 0x00, 0xc1}, 5, NULL},
    {"ud2", {0x0f, 0x0b}, 2, NULL},
    {"lfence (0F AE E8)", {0x0f, 0xae, 0xe8}, 3, NULL},
};

static void test_messages_name_the_missing_set(void **state) {
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    const Sample *s = &samples[i];
    const char *got = cpuid_missing_set(s->bytes, s->n);
    if (!s->says) {
      if (got) fail_msg("%s: said '%s'", s->what, got);
    } else if (!got || !strstr(got, s->says)) {
      fail_msg("%s: said '%s', not '%s'", s->what, got ? got : "(nothing)", s->says);
    }
  }
}

enum { ECX1_XSAVE = 1u << 26, ECX1_OSXSAVE = 1u << 27, EBX7_BMI1 = 1u << 3, EBX7_BMI2 = 1u << 8,
       EBX7_ADX = 1u << 19, EAXD1_XSAVEOPT = 1, EAXD1_XSAVEC = 2 };

static void test_feature_sets_and_named_models(void **state) {
  CpuModel model = {0}, *m = &model;
  CpuidRegs r1 = cpuid_query(m, 1, 0), r7 = cpuid_query(m, 7, 0), d0 = cpuid_query(m, 0xD, 0),
            d1 = cpuid_query(m, 0xD, 1);
  assert_int_equal(r1.ecx & (ECX1_XSAVE | ECX1_OSXSAVE), ECX1_XSAVE | ECX1_OSXSAVE);
  assert_int_equal(r7.ebx & (EBX7_BMI1 | EBX7_BMI2 | EBX7_ADX), EBX7_BMI1 | EBX7_BMI2 | EBX7_ADX);
  assert_int_equal(d0.eax, 7);   /* x87 | SSE | AVX */
  assert_int_equal(d0.ebx, 832); /* the legacy region, the XSAVE header, the YMM halves */
  assert_int_equal(d0.ecx, 832);
  assert_int_equal(d1.eax & 3, EAXD1_XSAVEOPT | EAXD1_XSAVEC);
  assert_true(cpuid_query(m, 0, 0).eax >= 0xD);

  assert_null(cpuid_apply_option(m, "-xsave")); /* OSXSAVE and the extensions go with it */
  assert_int_equal(cpuid_query(m, 1, 0).ecx & (ECX1_XSAVE | ECX1_OSXSAVE), 0);
  assert_int_equal(cpuid_query(m, 0xD, 0).eax, 0);
  assert_int_equal(cpuid_query(m, 0xD, 1).eax, 0);
  assert_non_null(cpuid_apply_option(m, "+xsavec")); /* not without XSAVE */
  assert_null(cpuid_apply_option(m, "+xsave"));
  assert_int_equal(cpuid_query(m, 0xD, 1).eax & 3, EAXD1_XSAVEOPT | EAXD1_XSAVEC);
  assert_int_equal(cpuid_query(m, 1, 0).ecx & ECX1_OSXSAVE, ECX1_OSXSAVE);

  assert_null(cpuid_apply_option(m, "x86-64-v2"));
  assert_int_equal(cpuid_query(m, 7, 0).ebx & (EBX7_BMI1 | EBX7_BMI2 | EBX7_ADX), 0);
  assert_int_equal(cpuid_query(m, 1, 0).ecx & (ECX1_XSAVE | ECX1_OSXSAVE), 0);
  assert_int_equal(cpuid_query(m, 1, 0).ecx & (1u << 28), 0); /* no AVX */
  assert_int_equal(cpuid_query(m, 1, 0).ecx & (1u << 25), 1u << 25); /* AES-NI stays */
  assert_null(cpuid_apply_option(m, "x86-64-v2,+bmi2"));
  assert_int_equal(cpuid_query(m, 7, 0).ebx & (EBX7_BMI1 | EBX7_BMI2), EBX7_BMI2);
  (void)state;
}

enum { ECX1_FMA = 1u << 12, ECX1_AVX = 1u << 28, ECX1_F16C = 1u << 29, EBX7_AVX2 = 1u << 5,
       ECX7_VAES = 1u << 9, ECX7_VPCLMULQDQ = 1u << 10 };

/* x86-64-v3 as a whole by default, and with AVX, XCR0 has the AVX component (leaf 0xD:
 * 832 bytes, subleaf 2 its 256 bytes at 576); FMA, F16C, AVX2, VAES and VPCLMULQDQ need
 * AVX, which needs XSAVE, and go when it goes. */
static void test_avx_and_its_state(void **state) {
  CpuModel model = {0}, *m = &model;
  uint32_t v3_ecx1 = ECX1_AVX | ECX1_FMA | ECX1_F16C, vector_ecx7 = ECX7_VAES | ECX7_VPCLMULQDQ;
  assert_int_equal(cpuid_query(m, 1, 0).ecx & v3_ecx1, v3_ecx1);
  assert_int_equal(cpuid_query(m, 7, 0).ebx & EBX7_AVX2, EBX7_AVX2);
  assert_int_equal(cpuid_query(m, 7, 0).ecx & vector_ecx7, vector_ecx7);
  CpuidRegs d0 = cpuid_query(m, 0xD, 0), d2 = cpuid_query(m, 0xD, 2);
  assert_int_equal(d0.eax, 7);
  assert_int_equal(d0.ebx, 832);
  assert_int_equal(d0.ecx, 832);
  assert_int_equal(cpuid_query(m, 0xD, 1).ebx, 832);
  assert_int_equal(d2.eax, 256);
  assert_int_equal(d2.ebx, 576);
  assert_int_equal(cpuid_xsave_size(m), 832);

  assert_null(cpuid_apply_option(m, "-avx")); /* its dependents go with it */
  assert_int_equal(cpuid_query(m, 1, 0).ecx & v3_ecx1, 0);
  assert_int_equal(cpuid_query(m, 7, 0).ebx & EBX7_AVX2, 0);
  assert_int_equal(cpuid_query(m, 7, 0).ecx & vector_ecx7, 0);
  assert_int_equal(cpuid_query(m, 0xD, 0).eax, 3);
  assert_int_equal(cpuid_query(m, 0xD, 0).ebx, 576);
  assert_int_equal(cpuid_query(m, 0xD, 2).eax, 0);
  assert_non_null(cpuid_apply_option(m, "+avx2")); /* not without AVX */
  assert_null(cpuid_apply_option(m, "+avx,+avx2,+fma,+vaes,+vpclmulqdq"));
  assert_int_equal(cpuid_query(m, 1, 0).ecx & v3_ecx1, ECX1_AVX | ECX1_FMA); /* F16C stays off */
  assert_int_equal(cpuid_query(m, 7, 0).ebx & EBX7_AVX2, EBX7_AVX2);

  assert_null(cpuid_apply_option(m, "-xsave"));
  assert_int_equal(cpuid_query(m, 1, 0).ecx & v3_ecx1, 0);
  assert_int_equal(cpuid_query(m, 7, 0).ebx & EBX7_AVX2, 0);
  assert_int_equal(cpuid_query(m, 7, 0).ecx & vector_ecx7, 0);
  assert_int_equal(cpuid_xcr0(m), 3);
  assert_non_null(cpuid_apply_option(m, "+avx")); /* not without XSAVE */
  assert_null(cpuid_apply_option(m, "+xsave,+avx"));
  assert_int_equal(cpuid_query(m, 7, 0).ebx & EBX7_AVX2, 0); /* AVX2 stays off */
  cpuid_reset_features(m);
  assert_int_equal(cpuid_query(m, 1, 0).ecx & v3_ecx1, v3_ecx1);
  assert_int_equal(cpuid_xcr0(m), 7);
  (void)state;
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_messages_name_the_missing_set),
                                     cmocka_unit_test(test_feature_sets_and_named_models),
                                     cmocka_unit_test(test_avx_and_its_state)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
