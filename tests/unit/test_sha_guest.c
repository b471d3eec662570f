/* test_sha_guest.c: the guest's SHA extensions (decoder and sha.c) through each host
 * crypto tier: SHA-1 and SHA-256 of FIPS 180-4's examples computed by compiled SHA-NI
 * code run in the interpreter; every form against the host CPU on random inputs (when
 * the host has the SHA extensions); and --cpu taking the instructions and their CPUID
 * bit away. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The routines below are x86-64 code, and the host CPU is the oracle. */
#ifdef __x86_64__
#include <immintrin.h>

#include "sse_harness.h"
#include "crypto_guest.h"
#include "fips180.h"

/* ---- SHA-1 and SHA-256 in guest code ---- */

/* Compiled for the SHA extensions with nothing beyond SSE4.1 otherwise, and run by the
 * interpreter from the first instruction to the return; they call nothing. */
#define GUEST_CODE __attribute__((noinline, target("sha,sse4.1"), UNINSTRUMENTED))

/* FIPS 180-4 4.2.2. */
static const uint32_t K256[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

/* The SHA-256 compression function over `blocks` 64-byte blocks, in the shape of the
 * SHA extensions' reference code: the state as ABEF and CDGH, four message words per
 * SHA256MSG1/SHA256MSG2 step, two rounds per SHA256RNDS2. */
GUEST_CODE static void sha256_blocks(uint32_t state[8], const uint8_t *data, uint64_t blocks) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
  __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8), cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (; blocks; blocks--, data += 64) {
    __m128i abef_in = abef, cdgh_in = cdgh, w[16];
    for (int g = 0; g < 16; g++) {
      if (g < 4) {
        w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), swap);
      } else {
        __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]),
                                  _mm_alignr_epi8(w[g - 1], w[g - 2], 4));
        w[g] = _mm_sha256msg2_epu32(t, w[g - 1]);
      }
      __m128i wk = _mm_add_epi32(w[g], _mm_load_si128((const __m128i *)&K256[4 * g]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B), dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Four SHA-1 rounds; SHA1RNDS4 wants its function number as an immediate. */
static inline __attribute__((always_inline, target("sha"))) __m128i
sha1_four_rounds(__m128i abcd, __m128i e, int f) {
  switch (f) {
  case 0: return _mm_sha1rnds4_epu32(abcd, e, 0);
  case 1: return _mm_sha1rnds4_epu32(abcd, e, 1);
  case 2: return _mm_sha1rnds4_epu32(abcd, e, 2);
  default: return _mm_sha1rnds4_epu32(abcd, e, 3);
  }
}

/* The SHA-1 compression function: twenty SHA1RNDS4 steps, E carried by SHA1NEXTE,
 * the schedule by SHA1MSG1, XOR and SHA1MSG2. */
GUEST_CODE static void sha1_blocks(uint32_t state[5], const uint8_t *data, uint64_t blocks) {
  const __m128i swap = _mm_set_epi64x(0x0001020304050607ll, 0x08090a0b0c0d0e0fll);
  __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
  __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
  for (; blocks; blocks--, data += 64) {
    __m128i abcd_in = abcd, e_in = e0, w[20], before = abcd, e = e0;
    for (int g = 0; g < 20; g++) {
      if (g < 4)
        w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), swap);
      else
        w[g] = _mm_sha1msg2_epu32(
            _mm_xor_si128(_mm_sha1msg1_epu32(w[g - 4], w[g - 3]), w[g - 2]), w[g - 1]);
      e = g == 0 ? _mm_add_epi32(e0, w[0]) : _mm_sha1nexte_epu32(before, w[g]);
      before = abcd;
      abcd = sha1_four_rounds(abcd, e, g / 5);
    }
    e0 = _mm_sha1nexte_epu32(before, e_in);
    abcd = _mm_add_epi32(abcd, abcd_in);
  }
  _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
  state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

/* FIPS 180-4's examples (fips180.h), each hash computed by guest code from the padded
 * message, through each tier. */
static void test_fips180_examples_as_guest_code(void **state) {
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    for (size_t i = 0; i < FIPS180_N_EXAMPLES; i++) {
      uint8_t block[128];
      uint64_t blocks = (uint64_t)fips180_pad(FIPS180_EXAMPLES[i].msg, block);
      uint32_t h1[5], h256[8];
      char got[65];
      memcpy(h1, FIPS180_SHA1_H0, sizeof h1);
      interpret((void *)sha1_blocks, P(h1), P(block), blocks, 0, 0);
      fips180_hex(h1, 5, got);
      if (strcmp(got, FIPS180_EXAMPLES[i].sha1) != 0)
        fail_msg("SHA-1(\"%s\"), %s tier: got %s, want %s", FIPS180_EXAMPLES[i].msg, tier_name,
                 got, FIPS180_EXAMPLES[i].sha1);
      memcpy(h256, FIPS180_SHA256_H0, sizeof h256);
      interpret((void *)sha256_blocks, P(h256), P(block), blocks, 0, 0);
      fips180_hex(h256, 8, got);
      if (strcmp(got, FIPS180_EXAMPLES[i].sha256) != 0)
        fail_msg("SHA-256(\"%s\"), %s tier: got %s, want %s", FIPS180_EXAMPLES[i].msg,
                 tier_name, got, FIPS180_EXAMPLES[i].sha256);
    }
  }
}

/* ---- against the host CPU ---- */

#define SHA(n, m, o, r, ...) {.name = n, .opc = {m, o}, .nopc = 2, .modrm = r, .ext = -1, \
                              .align16 = 1, .vals = VAL_INT, ##__VA_ARGS__}
#define REG_AND_MEM(n, m, o, ...) SHA(n " xmm", m, o, MR_REG, ##__VA_ARGS__), \
                                  SHA(n " m128", m, o, MR_MEM, ##__VA_ARGS__)

static const Form sha_forms[] = {
    REG_AND_MEM("sha1nexte", 0x38, 0xC8),   REG_AND_MEM("sha1msg1", 0x38, 0xC9),
    REG_AND_MEM("sha1msg2", 0x38, 0xCA),    REG_AND_MEM("sha256rnds2", 0x38, 0xCB),
    REG_AND_MEM("sha256msg1", 0x38, 0xCC),  REG_AND_MEM("sha256msg2", 0x38, 0xCD),
    /* Random imm8: the function number is its low two bits, the rest is ignored. */
    REG_AND_MEM("sha1rnds4", 0x3A, 0xCC, .imm8 = 1),
};
enum { N_SHA_FORMS = sizeof sha_forms / sizeof *sha_forms };

/* 100,000 random cases per form (unless X64EMU_DIFF_ITER says otherwise) through each tier,
 * comparing every register, flags, MXCSR and memory with the host's. */
static void test_every_form_matches_host_through_each_tier(void **state) {
  if (!fips180_host_has_sha()) {
    print_message("the host has no SHA extensions: nothing to compare with\n");
    skip();
  }
  unsigned n = diff_iterations_or(100000);
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    fprintf(stderr, "%s tier:\n", tier_name);
    assert_int_equal(run_forms_n(sha_forms, N_SHA_FORMS, n, 0, NULL), 0);
  }
}

/* The model's rule for a misaligned m128 (docs/cpu-model.md): #GP, nothing written, as
 * for every legacy SSE encoding; AMD's CPUs run the SHA instructions on it instead. */
static bool sha_misaligned_rule(const Form *f, const uint8_t *insn, unsigned len,
                                const MachineState *before, MachineState *expect, Outcome *o) {
  (void)f, (void)insn, (void)len;
  if (!case_mem || (uintptr_t)case_mem % 16 == 0) return false;
  *expect = *before;
  *o = (Outcome){SIGSEGV, SI_KERNEL, 0};
  return true;
}

/* Legacy SSE encodings: a misaligned m128 is #GP (SIGSEGV), as on the host of the model's
 * vendor. */
static void test_misaligned_memory_faults_like_host(void **state) {
  if (!fips180_host_has_sha()) skip();
  model_rule = sha_misaligned_rule;
  unsigned bad = 0;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    bad += run_forms_misaligned(sha_forms, N_SHA_FORMS, NULL);
  }
  model_rule = NULL;
  assert_int_equal(bad, 0);
}

/* ---- --cpu ---- */

static void test_cpu_option_removes_sha(void **state) {
  static const uint8_t rnds2[] = {0x0F, 0x38, 0xCB, 0xCA};
  static const uint8_t rnds4[] = {0x0F, 0x3A, 0xCC, 0xCA, 0x02};
  static const uint8_t rnds2_66[] = {0x66, 0x0F, 0x38, 0xCB, 0xCA}; /* not SHA: #UD */
  const uint32_t sha = 1u << 29;
  CpuModel *m = &test_machine()->model;
  cpuid_reset_features(m);
  assert_true(cpuid_query(m, 7, 0).ebx & sha);
  assert_true(decodes(rnds2, 4) && decodes(rnds4, 5));
  assert_false(decodes(rnds2_66, 5));
  assert_null(cpuid_apply_option(m, "-sha-ni"));
  assert_false(cpuid_query(m, 7, 0).ebx & sha);
  assert_false(decodes(rnds2, 4) || decodes(rnds4, 5));
  assert_null(cpuid_apply_option(m, "+sha"));
  assert_true(cpuid_query(m, 7, 0).ebx & sha);
  assert_true(decodes(rnds2, 4) && decodes(rnds4, 5));
  cpuid_reset_features(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fips180_examples_as_guest_code),
      cmocka_unit_test(test_every_form_matches_host_through_each_tier),
      cmocka_unit_test(test_misaligned_memory_faults_like_host),
      cmocka_unit_test(test_cpu_option_removes_sha),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

#else
#include "needs_x86_64.h"
#endif
