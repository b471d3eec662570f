/* byte_shuffle.h: PSHUFB's table lookup on the host's own byte-shuffle instruction
 * (SSSE3 PSHUFB on x86-64, TBL on aarch64), portable C elsewhere. OpenSSL's AES-GCM
 * byte-swaps every block with it, so it is as hot as the AES rounds. */
#ifndef X64EMU_BYTE_SHUFFLE_H
#define X64EMU_BYTE_SHUFFLE_H

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

/* out[i] = idx[i] & 0x80 ? 0 : table[idx[i] & 15]; out may be table or idx. */
static inline void byte_shuffle_portable(uint8_t out[16], const uint8_t table[16],
                                         const uint8_t idx[16]) {
  uint8_t r[16];
  for (int i = 0; i < 16; i++) r[i] = idx[i] & 0x80 ? 0 : table[idx[i] & 15];
  memcpy(out, r, 16);
}

#if defined(__x86_64__)
__attribute__((target("ssse3"))) static inline void byte_shuffle_ssse3(
    uint8_t out[16], const uint8_t table[16], const uint8_t idx[16]) {
  __m128i t = _mm_loadu_si128((const __m128i *)table), x = _mm_loadu_si128((const __m128i *)idx);
  _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(t, x));
}
#endif

static inline void byte_shuffle(uint8_t out[16], const uint8_t table[16], const uint8_t idx[16]) {
#if defined(__x86_64__) && defined(__SSSE3__)
  byte_shuffle_ssse3(out, table, idx);
#elif defined(__x86_64__)
  if (__builtin_cpu_supports("ssse3")) byte_shuffle_ssse3(out, table, idx);
  else byte_shuffle_portable(out, table, idx);
#elif defined(__aarch64__)
  /* TBL gives 0 for an index of 16 or more: keep bit 7 so that it still means zero. */
  uint8x16_t x = vandq_u8(vld1q_u8(idx), vdupq_n_u8(0x8F));
  vst1q_u8(out, vqtbl1q_u8(vld1q_u8(table), x));
#else
  byte_shuffle_portable(out, table, idx);
#endif
}

#endif
