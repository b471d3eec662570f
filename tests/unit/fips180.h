/* fips180.h: what the SHA tests (test_host_crypto.c on the primitives, test_sha_guest.c
 * on guest code) share: FIPS 180-4's initial hash values, its padding of a message, and
 * the published digests of its examples (NIST's "SHA1.pdf" and "SHA256.pdf" of the
 * Cryptographic Standards and Guidelines examples: one block and two blocks), and whether
 * the host CPU has the SHA extensions, read from CPUID rather than from the code under
 * test. Include after cmocka.h. */
#ifndef X64EMU_TEST_FIPS180_H
#define X64EMU_TEST_FIPS180_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* FIPS 180-4 5.3.1 and 5.3.3. */
static const uint32_t FIPS180_SHA1_H0[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
                                            0xc3d2e1f0};
static const uint32_t FIPS180_SHA256_H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static const struct {
  const char *msg, *sha1, *sha256;
} FIPS180_EXAMPLES[] = {
    {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};
enum { FIPS180_N_EXAMPLES = sizeof FIPS180_EXAMPLES / sizeof *FIPS180_EXAMPLES };

/* FIPS 180-4 5.1.1: a 1 bit, zeros, the length in bits as 64 bits big-endian, up to a
 * multiple of 64 bytes. Returns the number of blocks (at most 2 here). */
static inline int fips180_pad(const char *msg, uint8_t out[128]) {
  size_t len = strlen(msg);
  int blocks = (int)(len + 8) / 64 + 1;
  assert_true(blocks <= 2);
  memset(out, 0, 128);
  memcpy(out, msg, len);
  out[len] = 0x80;
  for (int i = 0; i < 8; i++)
    out[64 * blocks - 1 - i] = (uint8_t)((uint64_t)len * 8 >> 8 * i);
  return blocks;
}

/* The hash state as the examples print it: n words in hex. */
static inline void fips180_hex(const uint32_t *h, unsigned n, char hex[65]) {
  for (unsigned i = 0; i < n; i++) snprintf(hex + 8 * i, 9, "%08x", h[i]);
}

#ifdef __x86_64__
#include <cpuid.h>
/* CPUID.(EAX=7,ECX=0):EBX[29]. */
static inline bool fips180_host_has_sha(void) {
  unsigned a, b = 0, c, d;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

#endif
