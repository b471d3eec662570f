/* x86_64/crypto_accel.h: the x86-64 host's tier of host_crypto.h: each primitive is the
 * very instruction (AES-NI, PCLMULQDQ), detected with cpuid. Include host_crypto.h. */
#ifndef X64EMU_HOST_CRYPTO_ACCEL_H
#define X64EMU_HOST_CRYPTO_ACCEL_H

#include <cpuid.h>
#include <immintrin.h>

#define HOST_CRYPTO_ARCH "x86-64"
#define HOST_AES_NAME "AES-NI"
#define HOST_CLMUL_NAME "PCLMULQDQ"

/* Compile-time tier: the compiler already targets the instruction, so the code below
 * needs no target attribute and inlines into its caller. The features word still
 * decides, so that the portable tier can be forced at run time. */
#ifdef __AES__
#define HOST_AES_COMPILED true
#define ATTR_AES_ACCEL
#else
#define HOST_AES_COMPILED false
#define ATTR_AES_ACCEL __attribute__((target("aes")))
#endif
#ifdef __PCLMUL__
#define HOST_CLMUL_COMPILED true
#define ATTR_CLMUL_ACCEL
#else
#define HOST_CLMUL_COMPILED false
#define ATTR_CLMUL_ACCEL __attribute__((target("pclmul")))
#endif

#define HAVE_AES_ACCEL (host_crypto_accel & HOST_CPU_AES)
#define HAVE_CLMUL_ACCEL (host_crypto_accel & HOST_CPU_CLMUL)

/* For host_cpu_detect() only. AES-NI works on XMM registers alone, so it needs no
 * OS support beyond SSE (no XSAVE check). */
static inline uint32_t host_cpu_probe(void) {
  uint32_t found = HOST_CPU_DETECTED;
  unsigned a, b, c = 0, d;
  __get_cpuid(1, &a, &b, &c, &d);
  if (HOST_AES_COMPILED || (c & bit_AES))
    found |= HOST_CPU_AES;
  if (HOST_CLMUL_COMPILED || (c & bit_PCLMUL))
    found |= HOST_CPU_CLMUL;
  return found;
}

static inline __m128i load_block(const Block128 *x) {
  return _mm_load_si128((const __m128i *)x);
}

static inline void store_block(Block128 *x, __m128i v) { _mm_store_si128((__m128i *)x, v); }

static inline ATTR_AES_ACCEL void aes_SB_SR_MC_AK_accel(Block128 *out, const Block128 *st,
                                                         const Block128 *rk) {
  store_block(out, _mm_aesenc_si128(load_block(st), load_block(rk)));
}

static inline ATTR_AES_ACCEL void aes_SB_SR_AK_accel(Block128 *out, const Block128 *st,
                                                      const Block128 *rk) {
  store_block(out, _mm_aesenclast_si128(load_block(st), load_block(rk)));
}

static inline ATTR_AES_ACCEL void aes_ISB_ISR_IMC_AK_accel(Block128 *out, const Block128 *st,
                                                            const Block128 *rk) {
  store_block(out, _mm_aesdec_si128(load_block(st), load_block(rk)));
}

static inline ATTR_AES_ACCEL void aes_ISB_ISR_AK_accel(Block128 *out, const Block128 *st,
                                                        const Block128 *rk) {
  store_block(out, _mm_aesdeclast_si128(load_block(st), load_block(rk)));
}

static inline ATTR_AES_ACCEL void aes_IMC_accel(Block128 *out, const Block128 *st) {
  store_block(out, _mm_aesimc_si128(load_block(st)));
}

/* The instruction wants RCON as an immediate; XORing it into dwords 1 and 3 afterwards
 * gives the same result for any run-time value. */
static inline ATTR_AES_ACCEL void aes_keygen_assist_accel(Block128 *out, const Block128 *src,
                                                           uint8_t rcon) {
  __m128i t = _mm_aeskeygenassist_si128(load_block(src), 0);
  store_block(out, _mm_xor_si128(t, _mm_set_epi32(rcon, 0, rcon, 0)));
}

static inline ATTR_CLMUL_ACCEL void clmul_64x64_accel(Block128 *out, uint64_t a, uint64_t b) {
  __m128i va = _mm_cvtsi64_si128((long long)a), vb = _mm_cvtsi64_si128((long long)b);
  store_block(out, _mm_clmulepi64_si128(va, vb, 0x00));
}

#endif
