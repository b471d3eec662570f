/* aes_trace.c: one AES-128 block of FIPS-197 Appendix B with AES-NI, in a function of
 * its own (aes128_rounds) for the tracer's filter (trace.sh checks the state after each
 * round in the trace). Prints the ciphertext. */
#include <immintrin.h>
#include <stdio.h>
#include <string.h>

/* FIPS-197 Appendix B: the round keys of 2b7e1516 28aed2a6 abf71588 09cf4f3c, and the input. */
static const char *const round_keys[11] = {
    "2b7e151628aed2a6abf7158809cf4f3c", "a0fafe1788542cb123a339392a6c7605",
    "f2c295f27a96b9435935807a7359f67f", "3d80477d4716fe3e1e237e446d7a883b",
    "ef44a541a8525b7fb671253bdb0bad00", "d4d1c6f87c839d87caf2b8bc11f915bc",
    "6d88a37a110b3efddbf98641ca0093fd", "4e54f70e5f5fc9f384a64fb24ea6dc4f",
    "ead27321b58dbad2312bf5607f8d292f", "ac7766f319fadc2128d12941575c006e",
    "d014f9a8c9ee2589e13f0cc8b6630ca6",
};

static __m128i from_hex(const char *h) {
  unsigned char b[16];
  for (int i = 0; i < 16; i++) sscanf(h + 2 * i, "%2hhx", &b[i]);
  return _mm_loadu_si128((const __m128i *)b);
}

__attribute__((noinline)) __m128i aes128_rounds(__m128i s, const __m128i *rk) {
  s = _mm_xor_si128(s, rk[0]);
  for (int r = 1; r < 10; r++) s = _mm_aesenc_si128(s, rk[r]);
  return _mm_aesenclast_si128(s, rk[10]);
}

int main(void) {
  __m128i rk[11];
  for (int r = 0; r < 11; r++) rk[r] = from_hex(round_keys[r]);
  __m128i out = aes128_rounds(from_hex("3243f6a8885a308d313198a2e0370734"), rk);
  unsigned char b[16];
  _mm_storeu_si128((__m128i *)b, out);
  for (int i = 0; i < 16; i++) printf("%02x", b[i]);
  printf("\n");
  return 0;
}
