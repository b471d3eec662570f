/* aes_trace.c: one AES-128 block of FIPS-197 Appendix B with AES-NI, in a function of
 * its own (aes128_rounds) for the tracer's filter (trace.sh checks the state after each
 * round in the trace). Prints the ciphertext. */
#include <immintrin.h>
#include <stdio.h>
#include <string.h>

#include "fips197.h" /* tests/unit/ */

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
  for (int r = 0; r < 11; r++) rk[r] = from_hex(appendix_b_round_key[r]);
  __m128i out = aes128_rounds(from_hex(appendix_b_start[0]), rk);
  unsigned char b[16];
  _mm_storeu_si128((__m128i *)b, out);
  for (int i = 0; i < 16; i++) printf("%02x", b[i]);
  printf("\n");
  return 0;
}
