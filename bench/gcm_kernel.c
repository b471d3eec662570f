/* gcm_kernel.c: a fixed amount of AES-NI and PCLMULQDQ work for bench/tools.sh, the same
 * instructions on every CPU and runner (no CPUID dispatch, unlike OpenSSL): AES-128 in
 * counter mode over a 4 KiB buffer and a GHASH of it, argv[1] times (default 20). Prints
 * a checksum of the result, so that runners can be checked against each other. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCKS = 256 };

static __m128i aes128_block(__m128i s, const __m128i *rk) {
  s = _mm_xor_si128(s, rk[0]);
  for (int r = 1; r < 10; r++) s = _mm_aesenc_si128(s, rk[r]);
  return _mm_aesenclast_si128(s, rk[10]);
}

/* One GHASH multiplication of x by h, unreduced halves folded the schoolbook way. */
static __m128i gf_mul(__m128i x, __m128i h) {
  __m128i lo = _mm_clmulepi64_si128(x, h, 0x00), hi = _mm_clmulepi64_si128(x, h, 0x11);
  __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(x, h, 0x10), _mm_clmulepi64_si128(x, h, 0x01));
  lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
  hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
  __m128i poly = _mm_set_epi64x(0, 0xc200000000000000ull);
  __m128i t = _mm_clmulepi64_si128(lo, poly, 0x10);
  lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
  t = _mm_clmulepi64_si128(lo, poly, 0x10);
  lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
  return _mm_xor_si128(lo, hi);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  __m128i rk[11], data[BLOCKS], hash = _mm_setzero_si128();
  for (int r = 0; r < 11; r++) rk[r] = _mm_set_epi32(r, 3 * r + 1, 5 * r + 2, 7 * r + 3);
  __m128i h = aes128_block(_mm_setzero_si128(), rk);
  for (int i = 0; i < BLOCKS; i++) data[i] = _mm_set_epi32(i, 0, 0, 0);
  for (int n = 0; n < rounds; n++) {
    for (int i = 0; i < BLOCKS; i++) {
      __m128i counter = _mm_set_epi32(0, 0, n, i);
      data[i] = _mm_xor_si128(data[i], aes128_block(counter, rk));
      hash = gf_mul(_mm_xor_si128(hash, data[i]), h);
    }
  }
  unsigned long long out[2];
  _mm_storeu_si128((__m128i *)out, hash);
  printf("%016llx%016llx\n", out[1], out[0]);
  return 0;
}
