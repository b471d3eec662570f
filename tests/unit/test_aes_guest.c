/* test_aes_guest.c: the guest's AES-NI and PCLMULQDQ instructions (decoder and aes.c)
 * through each host crypto tier: known answers from FIPS-197, Intel's white papers and
 * the GCM specification, run as guest instructions and as whole compiled routines in
 * the interpreter; every form against the host CPU on random inputs; and --cpu taking
 * the instructions and their CPUID bits away. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fips197.h"
#include "hex_block.h"

/* The host CPU is the oracle, and the routines below are x86-64 code. */
#ifdef __x86_64__
#include <cpuid.h>
#include <immintrin.h>

#include "sse_harness.h"
#include "crypto_guest.h"

/* ---- blocks as publications print them ---- */

/* Byte 0 first: AES states, keys and GCM blocks. */
static Xmm bytes(const char *hex) {
  Xmm x;
  hex_block(hex, x.b, false);
  return x;
}

/* One 128-bit number, byte 15 first: XMM registers in Intel's papers. */
static Xmm number(const char *hex) {
  Xmm x;
  hex_block(hex, x.b, true);
  return x;
}

static Xmm xor128(Xmm a, Xmm b) {
  a.q[0] ^= b.q[0];
  a.q[1] ^= b.q[1];
  return a;
}

static const Xmm zero;

static void check(Xmm got, Xmm want, const char *what, const char *form) {
  if (memcmp(&got, &want, 16) == 0) return;
  char g[33], w[33];
  for (int i = 0; i < 16; i++) {
    snprintf(g + 2 * i, 3, "%02x", got.b[i]);
    snprintf(w + 2 * i, 3, "%02x", want.b[i]);
  }
  fail_msg("%s (%s form, %s tier): got bytes %s, want %s", what, form, tier_name, g, w);
}

/* ---- one guest instruction ---- */

enum { AESIMC = 0xDB, AESENC, AESENCLAST, AESDEC, AESDECLAST };
enum { AESKEYGENASSIST = 0x100 | 0xDF, PCLMULQDQ = 0x100 | 0x44 }; /* 0F 3A map */

static bool mem_form; /* the source operand is memory ([rsi]) rather than xmm2 */

/* Runs `66 0F 38|3A op` with xmm1 = dst and source src (xmm2, or 16 aligned bytes at
 * [rsi]) through decode_insn and the handler it picks; returns xmm1. */
static Xmm guest(unsigned op, Xmm dst, Xmm src, uint8_t imm) {
  static Xmm memory;
  static Cpu cpu;
  uint8_t code[8] = {0x66, 0x0F, op & 0x100 ? 0x3A : 0x38, (uint8_t)op,
                     mem_form ? 0x0E : 0xCA /* xmm1, [rsi] or xmm1, xmm2 */, imm};
  cpu_init(&cpu, test_machine());
  cpu.xmm[1] = dst;
  if (mem_form) {
    memory = src;
    cpu.r[RSI] = (uint64_t)(uintptr_t)&memory;
    cpu.xmm[2] = number("0123456789abcdeffedcba9876543210"); /* not the operand */
  } else {
    cpu.xmm[2] = src;
  }
  Insn in;
  uint64_t fault_at;
  unsigned len = op & 0x100 ? 6 : 5;
  assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)code, &in, &fault_at), len);
  cpu.rip = (uint64_t)(uintptr_t)code;
  cpu.cur = &in;
  insn_run_alone(&cpu, &in);
  return cpu.xmm[1];
}

static Xmm aesenc(Xmm x, Xmm k) { return guest(AESENC, x, k, 0); }
static Xmm aesenclast(Xmm x, Xmm k) { return guest(AESENCLAST, x, k, 0); }
static Xmm aesdec(Xmm x, Xmm k) { return guest(AESDEC, x, k, 0); }
static Xmm aesdeclast(Xmm x, Xmm k) { return guest(AESDECLAST, x, k, 0); }
static Xmm aesimc(Xmm x) { return guest(AESIMC, zero, x, 0); }

/* Every known-answer test runs through each tier, with register and memory operands. */
#define FOR_EACH_TIER_AND_FORM(form)                                         \
  for (unsigned t = 0; t < n_tiers; t++)                                     \
    for (int m = 0; m < 2; m++)                                              \
      for (const char *form = (use_tier(t), mem_form = m, m ? "m128" : "xmm"); \
           form; form = NULL)

/* Intel's white paper "Advanced Encryption Standard (AES) New Instructions Set"
 * (rev. 3.0): its example of each instruction, on xmm1 = 0x7b5b...475d and
 * xmm2 = 0x4869...6e5d. */
static void test_intel_aesni_examples_as_guest_instructions(void **state) {
  const Xmm x1 = number("7b5b54657374566563746f725d53475d");
  const Xmm x2 = number("48692853686179295b477565726f6e5d");
  FOR_EACH_TIER_AND_FORM(form) {
    check(aesenc(x1, x2), number("a8311c2f9fdba3c58b104b58ded7e595"), "AESENC", form);
    check(aesenclast(x1, x2), number("c7fb881e938c5964177ec42553fdc611"), "AESENCLAST", form);
    check(aesdec(x1, x2), number("138ac342faea2787b58eb95eb730392a"), "AESDEC", form);
    check(aesdeclast(x1, x2), number("c5a391ef6b317f95d410637b72a593d0"), "AESDECLAST", form);
    check(guest(AESKEYGENASSIST, x1, number("3c4fcf098815f7aba6d2ae2816157e2b"), 0x01),
          number("01eb848beb848a013424b5e524b5e434"), "AESKEYGENASSIST imm 0x01", form);
    check(aesimc(number("8dcab9dc035006bc8f57161e00cafd8d")),
          number("d635a667928b5eaeeec9cc3bc55f5777"), "AESIMC", form);
    /* The paper's MixColumns example maps 0x627a...b3e5 to 0x7b5b...475d. */
    check(aesimc(x1), number("627a6f6644b109c82b18330a81c3b3e5"), "AESIMC of MixColumns", form);
  }
}

static void test_fips197_appendix_b_as_guest_instructions(void **state) {
  const Xmm output = bytes(appendix_b_output);
  FOR_EACH_TIER_AND_FORM(form) {
    check(aesenclast(bytes(appendix_b_start[1]), zero),
          bytes("d4bf5d30e0b452aeb84111f11e2798e5"), "round 1 after ShiftRows", form);
    check(aesenc(bytes(appendix_b_start[1]), zero), bytes("046681e5e0cb199a48f8d37a2806264c"),
          "round 1 after MixColumns", form);
    for (int r = 1; r < 10; r++) {
      check(aesenc(bytes(appendix_b_start[r]), bytes(appendix_b_round_key[r])),
            bytes(appendix_b_start[r + 1]), "AESENC round", form);
      Xmm mixed = xor128(bytes(appendix_b_start[r + 1]), bytes(appendix_b_round_key[r]));
      check(aesdeclast(aesimc(mixed), zero), bytes(appendix_b_start[r]),
            "AESIMC, AESDECLAST undoing a round", form);
      /* AESDEC with the InvMixColumns of a key undoes InvMixColumns' linearity. */
      check(aesdec(aesimc(mixed), zero), aesimc(bytes(appendix_b_start[r])),
            "AESDEC undoing a round", form);
    }
    check(aesenclast(bytes(appendix_b_start[10]), bytes(appendix_b_round_key[10])), output,
          "AESENCLAST round 10", form);
    /* The key schedule: AESKEYGENASSIST's RotWord(SubWord(w3)) ^ rcon in dword 3. */
    static const uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
    for (int r = 1; r <= 10; r++) {
      Xmm w = bytes(appendix_b_round_key[r - 1]);
      uint32_t t = guest(AESKEYGENASSIST, zero, w, rcon[r - 1]).d[3];
      w.d[0] ^= t;
      w.d[1] ^= w.d[0];
      w.d[2] ^= w.d[1];
      w.d[3] ^= w.d[2];
      check(w, bytes(appendix_b_round_key[r]), "AESKEYGENASSIST key expansion", form);
    }
  }
}

/* Intel's white paper "Carry-Less Multiplication Instruction and its Usage for Computing
 * the GCM Mode" (rev. 2.02): one product per quadword selector; the bits of imm8 other
 * than 0 and 4 are ignored. */
static void test_intel_pclmulqdq_examples_as_guest_instructions(void **state) {
  const Xmm x1 = number("7b5b54657374566563746f725d53475d");
  const Xmm x2 = number("48692853686179295b477565726f6e5d");
  static const struct {
    uint8_t imm;
    const char *product;
  } cases[] = {
      {0x00, "1d4d84c85c3440c0929633d5d36f0451"}, {0x01, "1a2bf6db3a30862fbabf262df4b7d5c9"},
      {0x10, "1bd17c8d556ab5a17fa540ac2a281315"}, {0x11, "1d1e1f2c592e7c45d66ee03e410fd4ed"},
  };
  FOR_EACH_TIER_AND_FORM(form) {
    for (size_t i = 0; i < 4; i++)
      for (unsigned noise = 0; noise < 256; noise += 0x22) { /* 0x00, 0x22, ... 0xEE */
        uint8_t imm = (uint8_t)(cases[i].imm | (noise & 0xEE));
        char what[40];
        snprintf(what, sizeof what, "PCLMULQDQ imm %#04x", imm);
        check(guest(PCLMULQDQ, x1, x2, imm), number(cases[i].product), what, form);
      }
  }
}

/* ---- whole routines in the interpreter ---- */

/* Compiled for AES-NI and PCLMULQDQ with nothing beyond SSE2 otherwise, run by the
 * interpreter from their first instruction to their return. They call nothing (a
 * library call would run the host's library, which may use AVX), nor a sanitizer's
 * checks, when the tests are built with one. */
#define GUEST_CODE __attribute__((noinline, target("aes,pclmul"), UNINSTRUMENTED))

/* FIPS-197 5.2 with AESKEYGENASSIST giving SubWord and RotWord(SubWord()) ^ rcon, for
 * Nk = 4 or 8 words of key; rk gets Nk + 28 words (Nr + 1 round keys). */
#define KEYGEN(x, rcon) _mm_aeskeygenassist_si128(x, rcon)
static inline __attribute__((always_inline, target("aes"))) __m128i
expand_step(__m128i prev, __m128i assist) {
  prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
  prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
  prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
  return _mm_xor_si128(prev, assist);
}

GUEST_CODE static void aes128_expand(const uint8_t *key, __m128i rk[11]) {
  __m128i k = _mm_loadu_si128((const __m128i *)key);
  rk[0] = k;
#define STEP128(i, rcon) \
  k = expand_step(k, _mm_shuffle_epi32(KEYGEN(k, rcon), 0xFF)), rk[i] = k
  STEP128(1, 0x01); STEP128(2, 0x02); STEP128(3, 0x04); STEP128(4, 0x08); STEP128(5, 0x10);
  STEP128(6, 0x20); STEP128(7, 0x40); STEP128(8, 0x80); STEP128(9, 0x1b); STEP128(10, 0x36);
#undef STEP128
}

GUEST_CODE static void aes256_expand(const uint8_t *key, __m128i rk[15]) {
  __m128i a = _mm_loadu_si128((const __m128i *)key);
  __m128i b = _mm_loadu_si128((const __m128i *)(key + 16));
  rk[0] = a;
  rk[1] = b;
#define STEP256(i, rcon)                                              \
  a = expand_step(a, _mm_shuffle_epi32(KEYGEN(b, rcon), 0xFF)), rk[i] = a; \
  if (i + 1 < 15) b = expand_step(b, _mm_shuffle_epi32(KEYGEN(a, 0), 0xAA)), rk[i + 1] = b
  STEP256(2, 0x01); STEP256(4, 0x02); STEP256(6, 0x04); STEP256(8, 0x08);
  STEP256(10, 0x10); STEP256(12, 0x20); STEP256(14, 0x40);
#undef STEP256
}

GUEST_CODE static void aes_encrypt(const __m128i *rk, int rounds, const uint8_t *in,
                                   uint8_t *out) {
  __m128i s = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), rk[0]);
  for (int r = 1; r < rounds; r++) s = _mm_aesenc_si128(s, rk[r]);
  _mm_storeu_si128((__m128i *)out, _mm_aesenclast_si128(s, rk[rounds]));
}

/* The equivalent inverse cipher (FIPS-197 5.3.5): middle round keys through AESIMC. */
GUEST_CODE static void aes_decrypt(const __m128i *rk, int rounds, const uint8_t *in,
                                   uint8_t *out) {
  __m128i s = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), rk[rounds]);
  for (int r = rounds - 1; r >= 1; r--) s = _mm_aesdec_si128(s, _mm_aesimc_si128(rk[r]));
  _mm_storeu_si128((__m128i *)out, _mm_aesdeclast_si128(s, rk[0]));
}

/* Reverses the 16 bytes with SSE2 alone: GHASH's blocks are big-endian numbers. */
static inline __attribute__((always_inline)) __m128i reverse16(__m128i x) {
  x = _mm_shuffle_epi32(x, 0x1B);                                  /* dwords */
  x = _mm_shufflelo_epi16(_mm_shufflehi_epi16(x, 0xB1), 0xB1);     /* words */
  return _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8)); /* bytes */
}

/* GF(2^128) multiplication of Intel's GCM white paper (Algorithm 5, "gfmul"): four
 * PCLMULQDQ products, a shift left by one for the reflected bit order, and the
 * reduction modulo x^128 + x^7 + x^2 + x + 1. */
static inline __attribute__((always_inline, target("pclmul"))) __m128i gfmul(__m128i a,
                                                                               __m128i b) {
  __m128i t3 = _mm_clmulepi64_si128(a, b, 0x00), t4 = _mm_clmulepi64_si128(a, b, 0x10);
  __m128i t5 = _mm_clmulepi64_si128(a, b, 0x01), t6 = _mm_clmulepi64_si128(a, b, 0x11);
  t4 = _mm_xor_si128(t4, t5);
  t5 = _mm_slli_si128(t4, 8);
  t4 = _mm_srli_si128(t4, 8);
  t3 = _mm_xor_si128(t3, t5);
  t6 = _mm_xor_si128(t6, t4);
  __m128i t7 = _mm_srli_epi32(t3, 31), t8 = _mm_srli_epi32(t6, 31);
  t3 = _mm_slli_epi32(t3, 1);
  t6 = _mm_slli_epi32(t6, 1);
  __m128i t9 = _mm_srli_si128(t7, 12);
  t8 = _mm_slli_si128(t8, 4);
  t7 = _mm_slli_si128(t7, 4);
  t3 = _mm_or_si128(t3, t7);
  t6 = _mm_or_si128(t6, t8);
  t6 = _mm_or_si128(t6, t9);
  t7 = _mm_slli_epi32(t3, 31);
  t8 = _mm_slli_epi32(t3, 30);
  t9 = _mm_slli_epi32(t3, 25);
  t7 = _mm_xor_si128(_mm_xor_si128(t7, t8), t9);
  t8 = _mm_srli_si128(t7, 4);
  t7 = _mm_slli_si128(t7, 12);
  t3 = _mm_xor_si128(t3, t7);
  __m128i t2 = _mm_srli_epi32(t3, 1);
  t4 = _mm_srli_epi32(t3, 2);
  t5 = _mm_srli_epi32(t3, 7);
  t2 = _mm_xor_si128(_mm_xor_si128(t2, t4), t5);
  t2 = _mm_xor_si128(t2, t8);
  t3 = _mm_xor_si128(t3, t2);
  return _mm_xor_si128(t6, t3);
}

/* GHASH(H, A = empty, C) of the GCM specification (section 2.3), `blocks` blocks of C
 * followed by the lengths block. */
GUEST_CODE static void ghash(const uint8_t *h, const uint8_t *c, int blocks,
                             const uint8_t *lengths, uint8_t *out) {
  __m128i hh = reverse16(_mm_loadu_si128((const __m128i *)h)), x = _mm_setzero_si128();
  for (int i = 0; i <= blocks; i++) {
    const uint8_t *block = i < blocks ? c + 16 * i : lengths;
    x = gfmul(_mm_xor_si128(x, reverse16(_mm_loadu_si128((const __m128i *)block))), hh);
  }
  _mm_storeu_si128((__m128i *)out, reverse16(x));
}

static void check_bytes(const uint8_t *got, const char *want_hex, const char *what) {
  Xmm g;
  memcpy(&g, got, 16);
  check(g, bytes(want_hex), what, "compiled code");
}

/* FIPS-197 Appendix C.1 (AES-128) and C.3 (AES-256), "Example Vectors", with the key
 * schedule, encryption and decryption all in guest code. */
static void test_fips197_appendix_c_as_guest_code(void **state) {
  static const uint8_t plain[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  uint8_t key[32];
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    static __m128i rk[15];
    uint8_t out[16], back[16];
    interpret((void *)aes128_expand, P(key), P(rk), 0, 0, 0);
    interpret((void *)aes_encrypt, P(rk), 10, P(plain), P(out), 0);
    check_bytes(out, "69c4e0d86a7b0430d8cdb78070b4c55a", "C.1 AES-128 encrypt");
    interpret((void *)aes_decrypt, P(rk), 10, P(out), P(back), 0);
    check_bytes(back, "00112233445566778899aabbccddeeff", "C.1 AES-128 decrypt");

    interpret((void *)aes256_expand, P(key), P(rk), 0, 0, 0);
    interpret((void *)aes_encrypt, P(rk), 14, P(plain), P(out), 0);
    check_bytes(out, "8ea2b7ca516745bfeafc49904b496089", "C.3 AES-256 encrypt");
    interpret((void *)aes_decrypt, P(rk), 14, P(out), P(back), 0);
    check_bytes(back, "00112233445566778899aabbccddeeff", "C.3 AES-256 decrypt");
  }
}

/* "The Galois/Counter Mode of Operation (GCM)", appendix B: GHASH of test case 2 (one
 * block) and test case 3 (four blocks), computed with PCLMULQDQ in guest code. */
static void test_gcm_spec_ghash_as_guest_code(void **state) {
  Xmm h2 = bytes("66e94bd4ef8a2c3b884cfa59ca342b2e");
  Xmm c2 = bytes("0388dace60b6a392f328c2b971b2fe78");
  Xmm len2 = bytes("00000000000000000000000000000080");
  Xmm h3 = bytes("b83b533708bf535d0aa6e52980d53b78");
  Xmm c3[4] = {bytes("42831ec2217774244b7221b784d0d49c"),
               bytes("e3aa212f2c02a4e035c17e2329aca12e"),
               bytes("21d514b25466931c7d8f6a5aac84aa05"),
               bytes("1ba30b396a0aac973d58e091473f5985")};
  Xmm len3 = bytes("00000000000000000000000000000200");
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    uint8_t out[16];
    interpret((void *)ghash, P(&h2), P(&c2), 0, P(&c2), P(out));
    check_bytes(out, "5e2ec746917062882c85b0685353deb7", "GCM test case 2, X1");
    interpret((void *)ghash, P(&h2), P(&c2), 1, P(&len2), P(out));
    check_bytes(out, "f38cbb1ad69223dcc3457ae5b6b0f885", "GCM test case 2, GHASH");
    interpret((void *)ghash, P(&h3), P(c3), 4, P(&len3), P(out));
    check_bytes(out, "7f1b32b81b820d02614f8895ac1d4eac", "GCM test case 3, GHASH");
  }
}

/* ---- against the host CPU ---- */

#pragma GCC diagnostic ignored "-Woverride-init" /* later designators override CRYPTO's */

#define CRYPTO(n, m, o, r, ...) {.name = n, .pfx = 0x66, .opc = {m, o}, .nopc = 2, .modrm = r, \
                                 .ext = -1, .align16 = 1, .vals = VAL_INT, ##__VA_ARGS__}
#define REG_AND_MEM(n, m, o, ...) \
  CRYPTO(n " xmm", m, o, MR_REG, ##__VA_ARGS__), CRYPTO(n " m128", m, o, MR_MEM, ##__VA_ARGS__)

static const Form crypto_forms[] = {
  REG_AND_MEM("aesenc", 0x38, 0xDC),     REG_AND_MEM("aesenclast", 0x38, 0xDD),
  REG_AND_MEM("aesdec", 0x38, 0xDE),     REG_AND_MEM("aesdeclast", 0x38, 0xDF),
  REG_AND_MEM("aesimc", 0x38, 0xDB),
  /* Random imm8: each of the 256 values about 400 times per form. */
  REG_AND_MEM("aeskeygenassist", 0x3A, 0xDF, .imm8 = 1),
  REG_AND_MEM("pclmulqdq", 0x3A, 0x44, .imm8 = 1),
};
enum { N_CRYPTO_FORMS = sizeof crypto_forms / sizeof *crypto_forms };

/* The VEX forms (the default model has AVX, VAES and VPCLMULQDQ): VEX.128 AES-NI and PCLMULQDQ with a
 * vvvv source (none for VAESIMC and VAESKEYGENASSIST), VAES and VPCLMULQDQ on YMM; memory
 * operands need no alignment. */
#define VEX_CRYPTO(n, m, o, l, ...) CRYPTO(n, m, o, MR_BOTH, .vex = 1, .vex_l = l, .align16 = 0, ##__VA_ARGS__)
static const Form vex_crypto_forms[] = {
  VEX_CRYPTO("vaesenc", 0x38, 0xDC, 0),     VEX_CRYPTO("vaesenclast", 0x38, 0xDD, 0),
  VEX_CRYPTO("vaesdec", 0x38, 0xDE, 0),     VEX_CRYPTO("vaesdeclast", 0x38, 0xDF, 0),
  VEX_CRYPTO("vaesimc", 0x38, 0xDB, 0, .vex_nv = 1),
  VEX_CRYPTO("vaeskeygenassist", 0x3A, 0xDF, 0, .imm8 = 1, .vex_nv = 1),
  VEX_CRYPTO("vpclmulqdq", 0x3A, 0x44, 0, .imm8 = 1),
  VEX_CRYPTO("vaesenc ymm", 0x38, 0xDC, 1), VEX_CRYPTO("vaesenclast ymm", 0x38, 0xDD, 1),
  VEX_CRYPTO("vaesdec ymm", 0x38, 0xDE, 1), VEX_CRYPTO("vaesdeclast ymm", 0x38, 0xDF, 1),
  VEX_CRYPTO("vpclmulqdq ymm", 0x3A, 0x44, 1, .imm8 = 1),
};
enum { N_VEX_CRYPTO_FORMS = sizeof vex_crypto_forms / sizeof *vex_crypto_forms };

/* 100,000 random cases per form (unless X64EMU_DIFF_ITER says otherwise) through each
 * tier, comparing every XMM and general register, flags, MXCSR and memory. */
static void test_every_form_matches_host_through_each_tier(void **state) {
  unsigned n = diff_iterations_or(100000);
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    fprintf(stderr, "%s tier:\n", tier_name);
    assert_int_equal(run_forms_n(crypto_forms, N_CRYPTO_FORMS, n, 0, NULL), 0);
  }
}

/* Whether the host runs the VEX forms: AVX with the OS's YMM state, VAES and VPCLMULQDQ
 * (CPUID 7's own bits: Clang 14's __builtin_cpu_supports knows neither name). */
static bool host_has_vaes(void) {
  unsigned a, b, c = 0, d;
  return __builtin_cpu_supports("avx") && __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
         (c & bit_VAES) && (c & bit_VPCLMULQDQ);
}

/* The VEX forms through each tier, as many cases; the host needs VAES and VPCLMULQDQ. */
static void test_vex_forms_match_host_through_each_tier(void **state) {
  (void)state;
  if (!host_has_vaes()) skip();
  cpuid_reset_features(&test_machine()->model);
  harness_avx = true;
  unsigned n = diff_iterations_or(100000), bad = 0;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    fprintf(stderr, "%s tier:\n", tier_name);
    bad += run_forms_n(vex_crypto_forms, N_VEX_CRYPTO_FORMS, n, 0, NULL);
  }
  harness_avx = false;
  cpuid_reset_features(&test_machine()->model);
  assert_int_equal(bad, 0);
}

/* The legacy SSE encodings want 16-byte aligned memory: #GP (SIGSEGV) otherwise. */
static void test_misaligned_memory_faults_like_host(void **state) {
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    assert_int_equal(run_forms_misaligned(crypto_forms, N_CRYPTO_FORMS, NULL), 0);
  }
}

/* Runs bytes on the host and in the interpreter from one random state; true if alike. */
static bool same_as_host(const uint8_t *insn, unsigned len) {
  MachineState before = {0}, nat, emu;
  for (unsigned i = 0; i < 16; i++) {
    before.xmm[i].q[0] = rnd();
    before.xmm[i].q[1] = rnd();
    before.r[i] = rnd();
  }
  before.r[RSI] = (uint64_t)(uintptr_t)test_mem;
  before.rflags = 0x202;
  before.mxcsr = MXCSR_DEFAULT;
  nat = emu = before;
  Outcome on = native_run(&nat, insn, len), oe = emu_run(&emu, insn, len);
  bool ok = states_match(&nat, &on, &emu, &oe, NULL, NULL, 0, F_ARITH);
  if (!ok) print_bytes("differs", insn, len);
  return ok;
}

/* The opcodes without 66, with F2 or F3 (Key Locker's forms, absent here), or with LOCK
 * are other instructions or #UD: the interpreter must agree with the host. */
static void test_other_prefixes_match_host(void **state) {
  harness_begin();
  static const uint8_t ops[][2] = {{0x38, 0xDB}, {0x38, 0xDC}, {0x38, 0xDD}, {0x38, 0xDE},
                                   {0x38, 0xDF}, {0x3A, 0xDF}, {0x3A, 0x44}};
  static const uint8_t prefixes[][3] = {
      {0}, {1, 0xF3}, {1, 0xF2}, {2, 0x66, 0xF3}, {2, 0xF2, 0x66}, {2, 0xF0, 0x66},
  };
  unsigned bad = 0;
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++)
      for (int modrm = 0; modrm < 2; modrm++) {
        uint8_t insn[16];
        unsigned n = 0;
        for (unsigned i = 0; i < prefixes[p][0]; i++) insn[n++] = prefixes[p][1 + i];
        insn[n++] = 0x0F;
        insn[n++] = ops[o][0];
        insn[n++] = ops[o][1];
        insn[n++] = modrm ? 0x0E : 0xCA; /* xmm1, [rsi] or xmm1, xmm2 */
        if (ops[o][0] == 0x3A) insn[n++] = 0x11;
        bad += !same_as_host(insn, n);
      }
  assert_int_equal(bad, 0);
}

/* ---- --cpu ---- */

static void test_cpu_option_removes_features_and_instructions(void **state) {
  static const uint8_t aesenc_insn[] = {0x66, 0x0F, 0x38, 0xDC, 0xCA};
  static const uint8_t aeskeygen_insn[] = {0x66, 0x0F, 0x3A, 0xDF, 0xCA, 0x01};
  static const uint8_t pclmul_insn[] = {0x66, 0x0F, 0x3A, 0x44, 0xCA, 0x11};
  const uint32_t aes = 1u << 25, pclmul = 1u << 1;

  cpuid_reset_features(&test_machine()->model);
  assert_true((cpuid_query(&test_machine()->model, 1, 0).ecx & (aes | pclmul)) == (aes | pclmul));
  assert_true(decodes(aesenc_insn, 5) && decodes(aeskeygen_insn, 6) && decodes(pclmul_insn, 6));

  assert_null(cpuid_apply_option(&test_machine()->model, "-aes"));
  assert_int_equal(cpuid_query(&test_machine()->model, 1, 0).ecx & (aes | pclmul), pclmul);
  assert_false(decodes(aesenc_insn, 5));
  assert_false(decodes(aeskeygen_insn, 6));
  assert_true(decodes(pclmul_insn, 6));

  assert_null(cpuid_apply_option(&test_machine()->model, "pclmulqdq=off"));
  assert_int_equal(cpuid_query(&test_machine()->model, 1, 0).ecx & (aes | pclmul), 0);
  assert_false(decodes(pclmul_insn, 6));

  /* Errors change nothing; an unimplemented feature cannot be added. */
  assert_non_null(cpuid_apply_option(&test_machine()->model, "+aes,-nosuchfeature"));
  assert_non_null(cpuid_apply_option(&test_machine()->model, "+aes,"));
  assert_non_null(cpuid_apply_option(&test_machine()->model, "+avx512f"));
  assert_int_equal(cpuid_query(&test_machine()->model, 1, 0).ecx & (aes | pclmul), 0);

  assert_null(cpuid_apply_option(&test_machine()->model, "max,+aes,pclmuldq"));
  assert_true((cpuid_query(&test_machine()->model, 1, 0).ecx & (aes | pclmul)) == (aes | pclmul));
  assert_true(decodes(aesenc_insn, 5) && decodes(pclmul_insn, 6));

  /* Other features keep or lose only their own bits. */
  uint32_t ecx = cpuid_query(&test_machine()->model, 1, 0).ecx, ext = cpuid_query(&test_machine()->model, 0x80000001, 0).ecx;
  assert_null(cpuid_apply_option(&test_machine()->model, "-popcnt,-abm,-cx16"));
  assert_int_equal(cpuid_query(&test_machine()->model, 1, 0).ecx, ecx & ~(1u << 23 | 1u << 13));
  assert_int_equal(cpuid_query(&test_machine()->model, 0x80000001, 0).ecx, ext & ~(1u << 5));
  cpuid_reset_features(&test_machine()->model);
  assert_int_equal(cpuid_query(&test_machine()->model, 1, 0).ecx, ecx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_intel_aesni_examples_as_guest_instructions),
    cmocka_unit_test(test_fips197_appendix_b_as_guest_instructions),
    cmocka_unit_test(test_intel_pclmulqdq_examples_as_guest_instructions),
    cmocka_unit_test(test_fips197_appendix_c_as_guest_code),
    cmocka_unit_test(test_gcm_spec_ghash_as_guest_code),
    cmocka_unit_test(test_every_form_matches_host_through_each_tier),
    cmocka_unit_test(test_vex_forms_match_host_through_each_tier),
    cmocka_unit_test(test_misaligned_memory_faults_like_host),
    cmocka_unit_test(test_other_prefixes_match_host),
    cmocka_unit_test(test_cpu_option_removes_features_and_instructions),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

#else
#include "needs_x86_64.h"
#include "test_machine.h"
#endif
