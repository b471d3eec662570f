/* test_host_crypto.c: the host crypto primitives against published vectors (FIPS-197,
 * Intel's AES-NI and carry-less multiplication white papers, the GCM specification,
 * FIPS 180-4's SHA-1 and SHA-256 examples) through each host tier, every tier against
 * every other on random inputs (the byte shuffles too), and on x86-64 hosts with the SHA
 * extensions and SSSE3 the portable SHA primitives and byte shuffles against the
 * instructions themselves.
 *
 * X64EMU_HOST_CRYPTO picks the tiers the known answers run through: unset or "auto",
 * every tier the host has; "native", the host's instructions only (failing where the
 * host lacks them); "portable", portable C only. Built for x86-64 by tests/CMakeLists.txt
 * and for aarch64 (run under qemu-aarch64) by tests/host/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fips180.h"
#include "fips197.h"
#include "hex_block.h"

#include "host/host_crypto.h"

#ifdef __x86_64__
#include <immintrin.h>
#endif

enum { RANDOM_INPUTS = 100000 };

static HostCryptoMode kat_tiers[2]; /* the tiers the known answers run through */
static size_t n_kat_tiers;
static bool accel_allowed; /* the environment allows comparing accel with portable */
static const char *tier_label = "?";

static const char *mode_name(HostCryptoMode m) {
  return m == HOST_CRYPTO_PORTABLE ? "portable" : m == HOST_CRYPTO_NATIVE ? "native" : "auto";
}

static int choose_tiers(void **state) {
  const char *env = getenv("X64EMU_HOST_CRYPTO");
  HostCryptoMode mode = HOST_CRYPTO_AUTO;
  if (env && !host_crypto_parse(env, &mode)) {
    print_error("X64EMU_HOST_CRYPTO=%s: want auto, native or portable\n", env);
    return -1;
  }
  const char *why = host_crypto_select(mode); /* native fails without the instructions */
  if (why) {
    print_error("%s\n", why);
    return -1;
  }
  accel_allowed = mode != HOST_CRYPTO_PORTABLE && (host_cpu_detect() & HOST_CPU_CRYPTO);
  n_kat_tiers = 0;
  if (mode != HOST_CRYPTO_NATIVE)
    kat_tiers[n_kat_tiers++] = HOST_CRYPTO_PORTABLE;
  if (accel_allowed)
    kat_tiers[n_kat_tiers++] = mode;
  char text[2048];
  host_crypto_describe(text, sizeof text);
  print_message("X64EMU_HOST_CRYPTO=%s\n%s", env ? env : "(unset)", text);
  return 0;
}

static int restore_auto(void **state) {
  host_crypto_select(HOST_CRYPTO_AUTO);
  return 0;
}

static void use_tier(HostCryptoMode mode) {
  const char *why = host_crypto_select(mode);
  if (why)
    fail_msg("%s", why);
  tier_label = mode_name(mode);
}

/* ---- Writing and comparing blocks ---- */

/* A byte string as publications print AES states, keys and GCM blocks: byte 0 first. */
static Block128 bytes(const char *hex) {
  Block128 x;
  hex_block(hex, x.b, false);
  return x;
}

/* An XMM register as Intel's papers print it: one 128-bit number, byte 15 first. */
static Block128 xmm(const char *hex) {
  Block128 x;
  hex_block(hex, x.b, true);
  return x;
}

static Block128 xor_block(Block128 a, Block128 b) {
  a.q[0] ^= b.q[0];
  a.q[1] ^= b.q[1];
  return a;
}

static const Block128 zero;

static void check_block(Block128 got, Block128 want, const char *what) {
  if (memcmp(&got, &want, sizeof got) == 0)
    return;
  char g[33], w[33];
  for (int i = 0; i < 16; i++) {
    snprintf(g + 2 * i, 3, "%02x", got.b[i]);
    snprintf(w + 2 * i, 3, "%02x", want.b[i]);
  }
  fail_msg("%s, %s tier: got bytes %s, want %s", what, tier_label, g, w);
}

/* ---- The x86 instructions as compositions of the primitives ---- */

/* As the SSE handlers use them: the destination register is also the first operand. */
static Block128 aesenc(Block128 x, Block128 k) {
  aes_SB_SR_MC_AK(&x, &x, &k);
  return x;
}

static Block128 aesenclast(Block128 x, Block128 k) {
  aes_SB_SR_AK(&x, &x, &k);
  return x;
}

static Block128 aesdec(Block128 x, Block128 k) {
  aes_ISB_ISR_IMC_AK(&x, &x, &k);
  return x;
}

static Block128 aesdeclast(Block128 x, Block128 k) {
  aes_ISB_ISR_AK(&x, &x, &k);
  return x;
}

static Block128 aesimc(Block128 x) {
  aes_IMC(&x, &x);
  return x;
}

static Block128 aeskeygenassist(Block128 x, uint8_t imm) {
  aes_keygen_assist(&x, &x, imm);
  return x;
}

static Block128 pclmulqdq(Block128 x1, Block128 x2, uint8_t imm) {
  clmul_64x64(&x1, x1.q[imm & 1], x2.q[imm >> 4 & 1]);
  return x1;
}

static Block128 clmul(uint64_t a, uint64_t b) {
  Block128 r;
  clmul_64x64(&r, a, b);
  return r;
}

/* Each dword of w XORed with all the dwords before it, then with t: the recurrence
 * w[i] = w[i-Nk] ^ temp of FIPS-197 5.2, four words at a time (Intel's AES-NI white
 * paper computes it with three shifts and XORs). */
static Block128 next_round_key(Block128 w, uint32_t t) {
  w.d[1] ^= w.d[0];
  w.d[2] ^= w.d[1];
  w.d[3] ^= w.d[2];
  for (int i = 0; i < 4; i++)
    w.d[i] ^= t;
  return w;
}

/* AES-128 key expansion as in Intel's AES-NI white paper (AES_128_Key_Expansion). */
static void expand_key_128(Block128 key, Block128 rk[11]) {
  static const uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
  rk[0] = key;
  for (int i = 1; i <= 10; i++)
    rk[i] = next_round_key(rk[i - 1], aeskeygenassist(rk[i - 1], rcon[i - 1]).d[3]);
}

/* AES-256 key expansion as in the same paper (AES_256_Key_Expansion): even round keys
 * take RotWord(SubWord()) ^ rcon of the last word, odd ones SubWord() alone (rcon 0). */
static void expand_key_256(const Block128 key[2], Block128 rk[15]) {
  rk[0] = key[0];
  rk[1] = key[1];
  uint8_t rcon = 0x01;
  for (int i = 2; i <= 14; i++) {
    if (i % 2 == 0) {
      rk[i] = next_round_key(rk[i - 2], aeskeygenassist(rk[i - 1], rcon).d[3]);
      rcon = (uint8_t)(rcon << 1);
    } else {
      rk[i] = next_round_key(rk[i - 2], aeskeygenassist(rk[i - 1], 0).d[2]);
    }
  }
}

static Block128 encrypt(Block128 in, const Block128 *rk, int rounds) {
  Block128 s = xor_block(in, rk[0]);
  for (int r = 1; r < rounds; r++)
    s = aesenc(s, rk[r]);
  return aesenclast(s, rk[rounds]);
}

/* The equivalent inverse cipher (FIPS-197 5.3.5): AESDEC wants the middle round keys
 * passed through InvMixColumns. */
static Block128 decrypt(Block128 in, const Block128 *rk, int rounds) {
  Block128 s = xor_block(in, rk[rounds]);
  for (int r = rounds - 1; r >= 1; r--)
    s = aesdec(s, aesimc(rk[r]));
  return aesdeclast(s, rk[0]);
}

/* Multiplication in GCM's GF(2^128) from four 64x64 carry-less products, the way
 * Intel's white paper "Carry-Less Multiplication Instruction and its Usage for
 * Computing the GCM Mode" (rev. 2.02) does it: bytes reversed so that a block is one
 * 128-bit number, the 256-bit product shifted left by one (GCM's bit order is
 * reflected), then reduced modulo x^128 + x^7 + x^2 + x + 1. */
static Block128 reverse_bytes(Block128 x) {
  Block128 r;
  for (int i = 0; i < 16; i++)
    r.b[i] = x.b[15 - i];
  return r;
}

static Block128 gcm_multiply(Block128 x, Block128 h) {
  Block128 a = reverse_bytes(x), b = reverse_bytes(h);
  Block128 lo = clmul(a.q[0], b.q[0]), hi = clmul(a.q[1], b.q[1]);
  Block128 m1 = clmul(a.q[0], b.q[1]), m2 = clmul(a.q[1], b.q[0]);
  uint64_t x0 = lo.q[0], x1 = lo.q[1] ^ m1.q[0] ^ m2.q[0];
  uint64_t x2 = hi.q[0] ^ m1.q[1] ^ m2.q[1], x3 = hi.q[1];
  x3 = x3 << 1 | x2 >> 63;
  x2 = x2 << 1 | x1 >> 63;
  x1 = x1 << 1 | x0 >> 63;
  x0 <<= 1;
  uint64_t d = x1 ^ x0 << 63 ^ x0 << 62 ^ x0 << 57;
  uint64_t e0 = x0 >> 1 | d << 63, f0 = x0 >> 2 | d << 62, g0 = x0 >> 7 | d << 57;
  Block128 r;
  r.q[1] = x3 ^ d ^ d >> 1 ^ d >> 2 ^ d >> 7;
  r.q[0] = x2 ^ x0 ^ e0 ^ f0 ^ g0;
  return reverse_bytes(r);
}

/* GHASH(H, A = empty, C) of the GCM specification, section 2.3. */
static Block128 ghash(Block128 h, const Block128 *c, int blocks, Block128 lengths) {
  Block128 x = zero;
  for (int i = 0; i < blocks; i++)
    x = gcm_multiply(xor_block(x, c[i]), h);
  return gcm_multiply(xor_block(x, lengths), h);
}

/* ---- FIPS-197 ---- */

static void test_fips197_appendix_b_rounds(void **state) {
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    check_block(xor_block(bytes(appendix_b_start[0]), bytes(appendix_b_round_key[0])),
                bytes(appendix_b_start[1]), "Appendix B round 0 AddRoundKey");
    /* Round 1 step by step: after ShiftRows and after MixColumns, as printed. */
    check_block(aesenclast(bytes(appendix_b_start[1]), zero),
                bytes("d4bf5d30e0b452aeb84111f11e2798e5"), "Appendix B round 1 ShiftRows");
    check_block(aesenc(bytes(appendix_b_start[1]), zero),
                bytes("046681e5e0cb199a48f8d37a2806264c"), "Appendix B round 1 MixColumns");
    for (int r = 1; r < 10; r++) {
      char what[64];
      snprintf(what, sizeof what, "Appendix B round %d (AESENC)", r);
      check_block(aesenc(bytes(appendix_b_start[r]), bytes(appendix_b_round_key[r])),
                  bytes(appendix_b_start[r + 1]), what);
      /* Backwards: InvShiftRows and InvSubBytes of InvMixColumns undo the round. */
      Block128 mixed = xor_block(bytes(appendix_b_start[r + 1]), bytes(appendix_b_round_key[r]));
      snprintf(what, sizeof what, "Appendix B round %d inverted (AESIMC, AESDECLAST)", r);
      check_block(aesdeclast(aesimc(mixed), zero), bytes(appendix_b_start[r]), what);
    }
    check_block(aesenclast(bytes(appendix_b_start[10]), bytes(appendix_b_round_key[10])),
                bytes(appendix_b_output), "Appendix B round 10 (AESENCLAST)");
    check_block(aesdeclast(xor_block(bytes(appendix_b_output), bytes(appendix_b_round_key[10])),
                               zero),
                bytes(appendix_b_start[10]), "Appendix B round 10 inverted (AESDECLAST)");
  }
}

/* The key schedule of the same key, from aes_keygen_assist, against the round keys
 * FIPS-197 prints in Appendix A.1 and B. */
static void test_fips197_key_expansion_128(void **state) {
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    Block128 rk[11];
    expand_key_128(bytes(appendix_b_round_key[0]), rk);
    for (int r = 0; r <= 10; r++) {
      char what[48];
      snprintf(what, sizeof what, "AES-128 round key %d (AESKEYGENASSIST)", r);
      check_block(rk[r], bytes(appendix_b_round_key[r]), what);
    }
  }
}

/* FIPS-197 Appendix C.1 (AES-128) and C.3 (AES-256), "Example Vectors". */
static void test_fips197_appendix_c(void **state) {
  const Block128 plain = bytes("00112233445566778899aabbccddeeff");
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    Block128 rk128[11], rk256[15];
    expand_key_128(bytes("000102030405060708090a0b0c0d0e0f"), rk128);
    const Block128 key256[2] = {bytes("000102030405060708090a0b0c0d0e0f"),
                                bytes("101112131415161718191a1b1c1d1e1f")};
    expand_key_256(key256, rk256);

    const Block128 c128 = bytes("69c4e0d86a7b0430d8cdb78070b4c55a");
    check_block(encrypt(plain, rk128, 10), c128, "C.1 AES-128 encrypt");
    check_block(decrypt(c128, rk128, 10), plain, "C.1 AES-128 decrypt");

    const Block128 c256 = bytes("8ea2b7ca516745bfeafc49904b496089");
    check_block(encrypt(plain, rk256, 14), c256, "C.3 AES-256 encrypt");
    check_block(decrypt(c256, rk256, 14), plain, "C.3 AES-256 decrypt");
  }
}

/* ---- Intel's AES-NI white paper ---- */

/* Intel's white paper "Advanced Encryption Standard (AES) New Instructions Set"
 * (rev. 3.0): its example of each instruction, registers printed as 128-bit numbers. */
static void test_intel_aesni_examples(void **state) {
  const Block128 x1 = xmm("7b5b54657374566563746f725d53475d");
  const Block128 x2 = xmm("48692853686179295b477565726f6e5d");
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    check_block(aesenc(x1, x2), xmm("a8311c2f9fdba3c58b104b58ded7e595"), "AESENC");
    check_block(aesenclast(x1, x2), xmm("c7fb881e938c5964177ec42553fdc611"), "AESENCLAST");
    check_block(aesdec(x1, x2), xmm("138ac342faea2787b58eb95eb730392a"), "AESDEC");
    check_block(aesdeclast(x1, x2), xmm("c5a391ef6b317f95d410637b72a593d0"), "AESDECLAST");
    check_block(aeskeygenassist(xmm("3c4fcf098815f7aba6d2ae2816157e2b"), 0x01),
                xmm("01eb848beb848a013424b5e524b5e434"), "AESKEYGENASSIST imm 0x01");
    /* The paper's InvMixColumns example. (Its AESIMC example prints the result for the
     * other register: its MixColumns example maps 0x627a...b3e5 to 0x7b5b...475d, so
     * AESIMC of 0x7b5b...475d is 0x627a...b3e5.) */
    check_block(aesimc(xmm("8dcab9dc035006bc8f57161e00cafd8d")),
                xmm("d635a667928b5eaeeec9cc3bc55f5777"), "AESIMC (InvMixColumns example)");
    check_block(aesimc(x1), xmm("627a6f6644b109c82b18330a81c3b3e5"),
                "AESIMC (inverse of the MixColumns example)");
  }
}

/* ---- Carry-less multiplication ---- */

/* Intel's white paper "Carry-Less Multiplication Instruction and its Usage for
 * Computing the GCM Mode" (rev. 2.02): PCLMULQDQ on xmm1 = 0x7b5b...475d and
 * xmm2 = 0x4869...6e5d, one product per pair of quadwords. */
static void test_intel_pclmulqdq_examples(void **state) {
  const Block128 x1 = xmm("7b5b54657374566563746f725d53475d");
  const Block128 x2 = xmm("48692853686179295b477565726f6e5d");
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    check_block(pclmulqdq(x1, x2, 0x00), xmm("1d4d84c85c3440c0929633d5d36f0451"),
                "PCLMULQDQ xmm1.lo * xmm2.lo");
    check_block(pclmulqdq(x1, x2, 0x01), xmm("1a2bf6db3a30862fbabf262df4b7d5c9"),
                "PCLMULQDQ xmm1.hi * xmm2.lo");
    check_block(pclmulqdq(x1, x2, 0x10), xmm("1bd17c8d556ab5a17fa540ac2a281315"),
                "PCLMULQDQ xmm1.lo * xmm2.hi");
    check_block(pclmulqdq(x1, x2, 0x11), xmm("1d1e1f2c592e7c45d66ee03e410fd4ed"),
                "PCLMULQDQ xmm1.hi * xmm2.hi");
  }
}

/* "The Galois/Counter Mode of Operation (GCM)", the specification submitted to NIST,
 * appendix B: X1 and GHASH of test case 2 (one block), GHASH of test case 3 (four
 * blocks, no AAD). */
static void test_gcm_spec_ghash(void **state) {
  const Block128 h2 = bytes("66e94bd4ef8a2c3b884cfa59ca342b2e");
  const Block128 c2 = bytes("0388dace60b6a392f328c2b971b2fe78");
  const Block128 h3 = bytes("b83b533708bf535d0aa6e52980d53b78");
  const Block128 c3[4] = {
      bytes("42831ec2217774244b7221b784d0d49c"), bytes("e3aa212f2c02a4e035c17e2329aca12e"),
      bytes("21d514b25466931c7d8f6a5aac84aa05"), bytes("1ba30b396a0aac973d58e091473f5985"),
  };
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    check_block(gcm_multiply(c2, h2), bytes("5e2ec746917062882c85b0685353deb7"),
                "GCM test case 2, X1");
    check_block(ghash(h2, &c2, 1, bytes("00000000000000000000000000000080")),
                bytes("f38cbb1ad69223dcc3457ae5b6b0f885"), "GCM test case 2, GHASH");
    check_block(ghash(h3, c3, 4, bytes("00000000000000000000000000000200")),
                bytes("7f1b32b81b820d02614f8895ac1d4eac"), "GCM test case 3, GHASH");
  }
}

/* ---- SHA-1 and SHA-256 ---- */

/* The hashes as the SHA extensions compute them, following Intel's white paper "Intel
 * SHA Extensions" (2013) and OpenSSL's sha1_block_data_order_shaext and
 * sha256_block_data_order_shaext. Where the assembly byte-swaps with PSHUFB, adds with
 * PADDD or moves dwords with PSHUFD and PALIGNR, plain C does the same here: only the
 * SHA instructions are primitives. */
static Block128 add_dwords(Block128 a, Block128 b) {
  for (int i = 0; i < 4; i++)
    a.d[i] += b.d[i];
  return a;
}

/* FIPS 180-4 3.1: words are big-endian. */
static uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One block. The state is A..D in one register (A in the top dword), E in the top dword
 * of another; each 16 bytes of the block are one register with its first word on top.
 * SHA1RNDS4 runs rounds 4g..4g+3 with W+E in its source: the E of the first four
 * rounds is added by hand, every later E by SHA1NEXTE from the A of four rounds
 * before. Words 16-79 come four at a time from the four registers before:
 * SHA1MSG2(SHA1MSG1(W[t-16..], W[t-12..]) ^ W[t-8..], W[t-4..]). */
static void sha1_compress(uint32_t h[5], const uint8_t block[64]) {
  Block128 abcd = {.d = {h[3], h[2], h[1], h[0]}};
  const Block128 abcd_saved = abcd, e_saved = {.d = {0, 0, 0, h[4]}};
  Block128 w[4], we /* W+E */, abcd_before = abcd;
  for (int g = 0; g < 20; g++) {
    Block128 *m = &w[g % 4]; /* held W[4g-16..]; the others W[4g-12..], -8.., -4.. */
    if (g < 4) {
      for (int i = 0; i < 4; i++)
        m->d[3 - i] = load_be32(block + 16 * g + 4 * i);
    } else {
      sha1_msg1(m, m, &w[(g + 1) % 4]);
      *m = xor_block(*m, w[(g + 2) % 4]);
      sha1_msg2(m, m, &w[(g + 3) % 4]);
    }
    if (g == 0)
      we = add_dwords(e_saved, *m);
    else
      sha1_nexte(&we, &abcd_before, m);
    abcd_before = abcd;
    sha1_rnds4(&abcd, &abcd, &we, (unsigned)g / 5);
  }
  /* E after round 79, plus the E of the block before: SHA1NEXTE again. */
  Block128 e;
  sha1_nexte(&e, &abcd_before, &e_saved);
  abcd = add_dwords(abcd, abcd_saved);
  for (int i = 0; i < 4; i++)
    h[i] = abcd.d[3 - i];
  h[4] = e.d[3];
}

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* One block. The state is split as SHA256RNDS2 wants it, A,B,E,F and C,D,G,H (A and C
 * in the top dwords); the words are in block order, the first in the bottom dword.
 * Each SHA256RNDS2 makes the new A,B,E,F out of both halves in the register of the
 * older half, C,D,G,H, so the two registers take turns as destination. Words 16-63:
 * SHA256MSG2(SHA256MSG1(W[t-16..], W[t-12]) + W[t-7..], W[t-4..]), W[t-7..] a
 * PALIGNR of the two registers before. */
static void sha256_compress(uint32_t h[8], const uint8_t block[64]) {
  Block128 abef = {.d = {h[5], h[4], h[1], h[0]}}, cdgh = {.d = {h[7], h[6], h[3], h[2]}};
  const Block128 abef_saved = abef, cdgh_saved = cdgh;
  Block128 w[4];
  for (int g = 0; g < 16; g++) {
    Block128 *m = &w[g % 4]; /* held W[4g-16..]; the others W[4g-12..], -8.., -4.. */
    if (g < 4) {
      for (int i = 0; i < 4; i++)
        m->d[i] = load_be32(block + 16 * g + 4 * i);
    } else {
      const Block128 *w8 = &w[(g + 2) % 4], *w4 = &w[(g + 3) % 4];
      const Block128 w7 = {.d = {w8->d[1], w8->d[2], w8->d[3], w4->d[0]}};
      sha256_msg1(m, m, &w[(g + 1) % 4]);
      *m = add_dwords(*m, w7);
      sha256_msg2(m, m, w4);
    }
    Block128 k;
    memcpy(k.d, &sha256_k[4 * g], sizeof k);
    Block128 wk = add_dwords(*m, k);
    sha256_rnds2(&cdgh, &cdgh, &abef, &wk); /* rounds 4g, 4g+1: cdgh holds A,B,E,F */
    wk.q[0] = wk.q[1];                      /* PSHUFD 0x0e: the next two W+K */
    sha256_rnds2(&abef, &abef, &cdgh, &wk); /* rounds 4g+2, 4g+3: back in their places */
  }
  abef = add_dwords(abef, abef_saved);
  cdgh = add_dwords(cdgh, cdgh_saved);
  const uint32_t out[8] = {abef.d[3], abef.d[2], cdgh.d[3], cdgh.d[2],
                           abef.d[1], abef.d[0], cdgh.d[1], cdgh.d[0]};
  memcpy(h, out, sizeof out);
}

/* The digest of msg as hex, the way FIPS 180-4's examples print it. */
static void sha_digest(const char *msg, bool sha256, char hex[65]) {
  uint32_t h1[5], h256[8];
  memcpy(h1, FIPS180_SHA1_H0, sizeof h1);
  memcpy(h256, FIPS180_SHA256_H0, sizeof h256);
  uint8_t padded[128];
  int blocks = fips180_pad(msg, padded);
  for (int b = 0; b < blocks; b++)
    if (sha256)
      sha256_compress(h256, padded + 64 * b);
    else
      sha1_compress(h1, padded + 64 * b);
  if (sha256) fips180_hex(h256, 8, hex);
  else fips180_hex(h1, 5, hex);
}

/* FIPS 180-4's examples (fips180.h): one block and two blocks. */
static void test_fips180_examples(void **state) {
  for (size_t t = 0; t < n_kat_tiers; t++) {
    use_tier(kat_tiers[t]);
    for (size_t i = 0; i < FIPS180_N_EXAMPLES; i++) {
      char got[65];
      sha_digest(FIPS180_EXAMPLES[i].msg, false, got);
      if (strcmp(got, FIPS180_EXAMPLES[i].sha1) != 0)
        fail_msg("SHA-1(\"%s\"), %s tier: got %s, want %s", FIPS180_EXAMPLES[i].msg, tier_label,
                 got, FIPS180_EXAMPLES[i].sha1);
      sha_digest(FIPS180_EXAMPLES[i].msg, true, got);
      if (strcmp(got, FIPS180_EXAMPLES[i].sha256) != 0)
        fail_msg("SHA-256(\"%s\"), %s tier: got %s, want %s", FIPS180_EXAMPLES[i].msg,
                 tier_label, got, FIPS180_EXAMPLES[i].sha256);
    }
  }
}

/* ---- Tier selection ---- */

static void test_selection(void **state) {
  HostCryptoMode m;
  assert_true(host_crypto_parse("auto", &m) && m == HOST_CRYPTO_AUTO);
  assert_true(host_crypto_parse("native", &m) && m == HOST_CRYPTO_NATIVE);
  assert_true(host_crypto_parse("portable", &m) && m == HOST_CRYPTO_PORTABLE);
  assert_false(host_crypto_parse("Native", &m));
  assert_false(host_crypto_parse("", &m));
  assert_false(host_crypto_parse(NULL, &m));

  assert_true(host_cpu_detect() & HOST_CPU_DETECTED);
#ifdef __x86_64__
  /* The compiler's own cpuid reading is a second opinion on the x86-64 detection. */
  if (strcmp(HOST_CRYPTO_ARCH, "x86-64") == 0) {
    __builtin_cpu_init();
    assert_int_equal(!!(host_cpu_features & HOST_CPU_AES), !!__builtin_cpu_supports("aes"));
    assert_int_equal(!!(host_cpu_features & HOST_CPU_CLMUL),
                     !!__builtin_cpu_supports("pclmul"));
    /* Clang 14 knows no "sha" for __builtin_cpu_supports: the test's own cpuid. */
    assert_int_equal(!!(host_cpu_features & HOST_CPU_SHA), fips180_host_has_sha());
    assert_int_equal(!!(host_cpu_features & HOST_CPU_SHUFFLE), !!__builtin_cpu_supports("ssse3"));
  }
#endif

  char text[2048];
  assert_null(host_crypto_select(HOST_CRYPTO_PORTABLE));
  assert_int_equal(host_crypto_mode(), HOST_CRYPTO_PORTABLE);
  for (uint32_t f = HOST_CPU_AES; f <= HOST_CPU_SHUFFLE; f <<= 1)
    assert_int_equal(host_crypto_tier(f), HOST_CRYPTO_TIER_PORTABLE);
  int len = host_crypto_describe(text, sizeof text);
  assert_int_equal(len, (int)strlen(text));
  assert_non_null(strstr(text, "(portable)"));
  assert_non_null(strstr(text, "AESENC "));
  assert_non_null(strstr(text, "PCLMULQDQ"));
  assert_non_null(strstr(text, "SHA1RNDS4 "));
  assert_non_null(strstr(text, "SHA256MSG2 "));
  assert_non_null(strstr(text, "PSHUFB "));
  assert_non_null(strstr(text, "PALIGNR "));
  assert_null(strstr(text, "detected"));

  /* describe() measures like snprintf when the buffer is short. */
  char small[8];
  assert_int_equal(host_crypto_describe(small, sizeof small), len);
  assert_int_equal(strlen(small), sizeof small - 1);

  assert_null(host_crypto_select(HOST_CRYPTO_AUTO));
  host_crypto_describe(text, sizeof text);
  for (uint32_t f = HOST_CPU_AES; f <= HOST_CPU_SHUFFLE; f <<= 1)
    assert_int_equal(host_crypto_tier(f) != HOST_CRYPTO_TIER_PORTABLE, !!(host_cpu_features & f));
  if ((host_cpu_features & HOST_CPU_CRYPTO) == HOST_CPU_CRYPTO)
    assert_null(strstr(text, "portable C"));
  else
    assert_non_null(strstr(text, "portable C"));

  /* Native on a host without the instructions: a message, and the tier unchanged. */
  uint32_t saved = host_cpu_features;
  host_cpu_features = HOST_CPU_DETECTED | HOST_CPU_AES | HOST_CPU_SHUFFLE;
  const char *why = host_crypto_select(HOST_CRYPTO_NATIVE);
  host_cpu_features = saved;
  assert_non_null(why);
  print_message("native without carry-less multiply and SHA: %s\n", why);
  assert_non_null(strstr(why, "native"));
  assert_non_null(strstr(why, "no " HOST_CLMUL_NAME " or " HOST_SHA_NAME " on"));
  host_cpu_features = HOST_CPU_DETECTED | HOST_CPU_AES | HOST_CPU_CLMUL | HOST_CPU_SHUFFLE;
  why = host_crypto_select(HOST_CRYPTO_NATIVE);
  host_cpu_features = saved;
  assert_non_null(why);
  assert_non_null(strstr(why, "no " HOST_SHA_NAME " on"));
  host_cpu_features = HOST_CPU_DETECTED | HOST_CPU_AES | HOST_CPU_CLMUL | HOST_CPU_SHA;
  why = host_crypto_select(HOST_CRYPTO_NATIVE);
  host_cpu_features = saved;
  assert_non_null(why);
  assert_non_null(strstr(why, "no " HOST_SHUFFLE_NAME " on"));
  assert_int_equal(host_crypto_mode(), HOST_CRYPTO_AUTO);
  if (saved & HOST_CPU_CRYPTO)
    assert_int_equal(host_crypto_accel, saved & HOST_CPU_CRYPTO);
}

/* ---- Random operands ---- */

enum { N_OPERANDS = 3 }; /* destination, source, and XMM0 for SHA256RNDS2 */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15);
  z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9;
  z = (z ^ z >> 27) * 0x94d049bb133111eb;
  return z ^ z >> 31;
}

/* Input i of a run: every mix of all-zero and all-one operands first, then random. */
static void random_operands(uint64_t *s, long i, Block128 op[N_OPERANDS], uint8_t *imm) {
  for (int k = 0; k < N_OPERANDS; k++) {
    op[k].q[0] = splitmix64(s);
    op[k].q[1] = splitmix64(s);
    if (i < 1 << N_OPERANDS)
      op[k].q[0] = op[k].q[1] = i >> k & 1 ? ~0ULL : 0;
  }
  *imm = (uint8_t)splitmix64(s);
}

static void fail_on_difference(const char *what, const char *reference, const char *other,
                               long i, uint64_t seed, const Block128 op[N_OPERANDS]) {
  char text[3][33];
  for (int k = 0; k < N_OPERANDS; k++)
    snprintf(text[k], sizeof text[k], "%016llx%016llx", (unsigned long long)op[k].q[1],
             (unsigned long long)op[k].q[0]);
  fail_msg("%s: %s and %s differ on input %ld (seed %#llx): operands %s %s %s", what,
           reference, other, i, (unsigned long long)seed, text[0], text[1], text[2]);
}

/* ---- Every tier against every other ---- */

enum {
  ENC, ENCLAST, DEC, DECLAST, IMC, KEYGEN_ASSIST, CLMUL,
  SHA1_RNDS4, SHA1_NEXTE, SHA1_MSG1, SHA1_MSG2, SHA256_RNDS2, SHA256_MSG1, SHA256_MSG2,
  SHUFFLE, SHUFFLE_PAIR, N_PRIMITIVES
};
static const char *const primitive_names[N_PRIMITIVES] = {
    "aes_SB_SR_MC_AK", "aes_SB_SR_AK", "aes_ISB_ISR_IMC_AK", "aes_ISB_ISR_AK",
    "aes_IMC",         "aes_keygen_assist", "clmul_64x64",
    "sha1_rnds4",      "sha1_nexte", "sha1_msg1", "sha1_msg2",
    "sha256_rnds2",    "sha256_msg1", "sha256_msg2",
    "byte_shuffle",    "byte_shuffle_pair",
};

/* Out of place here; the known answers above work in place. */
static void run_all(Block128 out[N_PRIMITIVES], const Block128 op[N_OPERANDS], uint8_t imm) {
  const Block128 *a = &op[0], *b = &op[1], *c = &op[2];
  aes_SB_SR_MC_AK(&out[ENC], a, b);
  aes_SB_SR_AK(&out[ENCLAST], a, b);
  aes_ISB_ISR_IMC_AK(&out[DEC], a, b);
  aes_ISB_ISR_AK(&out[DECLAST], a, b);
  aes_IMC(&out[IMC], a);
  aes_keygen_assist(&out[KEYGEN_ASSIST], a, imm);
  clmul_64x64(&out[CLMUL], a->q[imm & 1], b->q[imm >> 4 & 1]);
  sha1_rnds4(&out[SHA1_RNDS4], a, b, imm & 3);
  sha1_nexte(&out[SHA1_NEXTE], a, b);
  sha1_msg1(&out[SHA1_MSG1], a, b);
  sha1_msg2(&out[SHA1_MSG2], a, b);
  sha256_rnds2(&out[SHA256_RNDS2], a, b, c);
  sha256_msg1(&out[SHA256_MSG1], a, b);
  sha256_msg2(&out[SHA256_MSG2], a, b);
  byte_shuffle(&out[SHUFFLE], a, b->b); /* random indices: top bits set and clear */
  byte_shuffle_pair(&out[SHUFFLE_PAIR], a, b->b, c, a->b);
}

static void test_tiers_agree_on_random_inputs(void **state) {
  if (!accel_allowed) {
    print_message("one tier only (no accelerated tier, or X64EMU_HOST_CRYPTO=portable)\n");
    skip();
  }
  /* Every tier this host has; the first is the reference for the others. */
  static const HostCryptoMode tiers[] = {HOST_CRYPTO_PORTABLE, HOST_CRYPTO_AUTO};
  enum { N_TIERS = sizeof tiers / sizeof *tiers };
  const uint64_t seed = 0x786436346875ULL;
  uint64_t s = seed;
  for (long i = 0; i < RANDOM_INPUTS; i++) {
    Block128 op[N_OPERANDS];
    uint8_t imm;
    random_operands(&s, i, op, &imm);
    Block128 out[N_TIERS][N_PRIMITIVES];
    for (int t = 0; t < N_TIERS; t++) {
      use_tier(tiers[t]);
      run_all(out[t], op, imm);
    }
    for (int t = 1; t < N_TIERS; t++)
      for (int k = 0; k < N_PRIMITIVES; k++)
        if (memcmp(&out[0][k], &out[t][k], sizeof(Block128)) != 0) {
          char what[48];
          snprintf(what, sizeof what, "%s (imm %#x)", primitive_names[k], imm);
          fail_on_difference(what, mode_name(tiers[0]), mode_name(tiers[t]), i, seed, op);
        }
  }
  print_message("%d random inputs per primitive agree across the tiers\n", RANDOM_INPUTS);
}

/* ---- The portable SHA primitives against the x86 instructions ---- */

/* Whatever tier this build has (generic included): the oracle is the host CPU itself,
 * every SHA1RNDS4 immediate on every input. */
#ifdef __x86_64__
enum {
  SHA1RNDS4_0, SHA1RNDS4_1, SHA1RNDS4_2, SHA1RNDS4_3, SHA1NEXTE, SHA1MSG1, SHA1MSG2,
  SHA256RNDS2, SHA256MSG1, SHA256MSG2, N_SHA_CASES
};
static const char *const sha_case_names[N_SHA_CASES] = {
    "SHA1RNDS4 imm 0", "SHA1RNDS4 imm 1", "SHA1RNDS4 imm 2", "SHA1RNDS4 imm 3",
    "SHA1NEXTE",       "SHA1MSG1",        "SHA1MSG2",        "SHA256RNDS2",
    "SHA256MSG1",      "SHA256MSG2",
};

static void sha_portable_cases(Block128 out[N_SHA_CASES], const Block128 op[N_OPERANDS]) {
  for (unsigned f = 0; f < 4; f++)
    sha1_rnds4_portable(&out[SHA1RNDS4_0 + f], &op[0], &op[1], f);
  sha1_nexte_portable(&out[SHA1NEXTE], &op[0], &op[1]);
  sha1_msg1_portable(&out[SHA1MSG1], &op[0], &op[1]);
  sha1_msg2_portable(&out[SHA1MSG2], &op[0], &op[1]);
  sha256_rnds2_portable(&out[SHA256RNDS2], &op[0], &op[1], &op[2]);
  sha256_msg1_portable(&out[SHA256MSG1], &op[0], &op[1]);
  sha256_msg2_portable(&out[SHA256MSG2], &op[0], &op[1]);
}

__attribute__((target("sha"))) static void sha_instruction_cases(Block128 out[N_SHA_CASES],
                                                                 const Block128 op[N_OPERANDS]) {
  __m128i d = _mm_load_si128((const __m128i *)&op[0]);
  __m128i s = _mm_load_si128((const __m128i *)&op[1]);
  __m128i xmm0 = _mm_load_si128((const __m128i *)&op[2]);
  __m128i r[N_SHA_CASES] = {
      [SHA1RNDS4_0] = _mm_sha1rnds4_epu32(d, s, 0),
      [SHA1RNDS4_1] = _mm_sha1rnds4_epu32(d, s, 1),
      [SHA1RNDS4_2] = _mm_sha1rnds4_epu32(d, s, 2),
      [SHA1RNDS4_3] = _mm_sha1rnds4_epu32(d, s, 3),
      [SHA1NEXTE] = _mm_sha1nexte_epu32(d, s),
      [SHA1MSG1] = _mm_sha1msg1_epu32(d, s),
      [SHA1MSG2] = _mm_sha1msg2_epu32(d, s),
      [SHA256RNDS2] = _mm_sha256rnds2_epu32(d, s, xmm0),
      [SHA256MSG1] = _mm_sha256msg1_epu32(d, s),
      [SHA256MSG2] = _mm_sha256msg2_epu32(d, s),
  };
  for (int k = 0; k < N_SHA_CASES; k++)
    _mm_store_si128((__m128i *)&out[k], r[k]);
}
#endif

/* The portable byte shuffles against PSHUFB (SSSE3), the same way. */
#ifdef __x86_64__
__attribute__((target("ssse3"))) static void pshufb_cases(Block128 out[2],
                                                          const Block128 op[N_OPERANDS]) {
  __m128i a = _mm_load_si128((const __m128i *)&op[0]);
  __m128i b = _mm_load_si128((const __m128i *)&op[1]);
  __m128i c = _mm_load_si128((const __m128i *)&op[2]);
  _mm_store_si128((__m128i *)&out[0], _mm_shuffle_epi8(a, b));
  _mm_store_si128((__m128i *)&out[1],
                  _mm_or_si128(_mm_shuffle_epi8(a, b), _mm_shuffle_epi8(c, a)));
}
#endif

static void test_shuffle_portable_against_pshufb(void **state) {
#ifdef __x86_64__
  if (!__builtin_cpu_supports("ssse3")) {
    print_message("this CPU has no SSSE3\n");
    skip();
  }
  const uint64_t seed = 0x50534855464bULL;
  uint64_t s = seed;
  for (long i = 0; i < RANDOM_INPUTS; i++) {
    Block128 op[N_OPERANDS], want[2], got[2];
    uint8_t imm;
    random_operands(&s, i, op, &imm);
    pshufb_cases(want, op);
    byte_shuffle_portable(&got[0], &op[0], op[1].b);
    byte_shuffle_pair_portable(&got[1], &op[0], op[1].b, &op[2], op[0].b);
    if (memcmp(&want[0], &got[0], sizeof(Block128)) != 0)
      fail_on_difference("byte_shuffle", "PSHUFB", "the portable tier", i, seed, op);
    if (memcmp(&want[1], &got[1], sizeof(Block128)) != 0)
      fail_on_difference("byte_shuffle_pair", "PSHUFB", "the portable tier", i, seed, op);
  }
  print_message("%d random inputs agree with PSHUFB in the portable tier\n", RANDOM_INPUTS);
#else
  print_message("not an x86-64 host: no PSHUFB to compare with\n");
  skip();
#endif
}

static void test_sha_portable_against_instructions(void **state) {
#ifdef __x86_64__
  if (!fips180_host_has_sha()) {
    print_message("this CPU has no SHA extensions\n");
    skip();
  }
  const uint64_t seed = 0x5348412d4e49ULL;
  uint64_t s = seed;
  for (long i = 0; i < RANDOM_INPUTS; i++) {
    Block128 op[N_OPERANDS], want[N_SHA_CASES], got[N_SHA_CASES];
    uint8_t imm;
    random_operands(&s, i, op, &imm);
    sha_instruction_cases(want, op);
    sha_portable_cases(got, op);
    for (int k = 0; k < N_SHA_CASES; k++)
      if (memcmp(&want[k], &got[k], sizeof(Block128)) != 0)
        fail_on_difference(sha_case_names[k], "the instruction", "the portable tier", i, seed,
                           op);
  }
  print_message("%d random inputs per SHA instruction agree with the portable tier\n",
                RANDOM_INPUTS);
#else
  print_message("not an x86-64 host: no SHA instructions to compare with\n");
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_fips197_appendix_b_rounds, restore_auto),
      cmocka_unit_test_teardown(test_fips197_key_expansion_128, restore_auto),
      cmocka_unit_test_teardown(test_fips197_appendix_c, restore_auto),
      cmocka_unit_test_teardown(test_intel_aesni_examples, restore_auto),
      cmocka_unit_test_teardown(test_intel_pclmulqdq_examples, restore_auto),
      cmocka_unit_test_teardown(test_gcm_spec_ghash, restore_auto),
      cmocka_unit_test_teardown(test_fips180_examples, restore_auto),
      cmocka_unit_test_teardown(test_selection, restore_auto),
      cmocka_unit_test_teardown(test_tiers_agree_on_random_inputs, restore_auto),
      cmocka_unit_test(test_sha_portable_against_instructions),
      cmocka_unit_test(test_shuffle_portable_against_pshufb),
  };
  return cmocka_run_group_tests_name("host_crypto", tests, choose_tiers, restore_auto);
}
