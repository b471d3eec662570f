/* x86_64/crypto_accel.h: the x86-64 host's tier of host_crypto.h: each primitive is the
 * very instruction (AES-NI, PCLMULQDQ, the SHA extensions, SSSE3's PSHUFB), detected
 * with cpuid.
 * Include host_crypto.h. */
#ifndef X64EMU_HOST_CRYPTO_ACCEL_H
#define X64EMU_HOST_CRYPTO_ACCEL_H

#include <cpuid.h>
#include <immintrin.h>

#define HOST_CRYPTO_ARCH "x86-64"
#define HOST_AES_NAME "AES-NI"
#define HOST_CLMUL_NAME "PCLMULQDQ"
#define HOST_SHA_NAME "SHA extensions"
#define HOST_SHUFFLE_NAME "SSSE3"

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
#ifdef __SHA__
#define HOST_SHA_COMPILED true
#define ATTR_SHA_ACCEL
#else
#define HOST_SHA_COMPILED false
#define ATTR_SHA_ACCEL __attribute__((target("sha")))
#endif

/* The byte shuffles are inlined into the handlers of many instructions (byte_select.h),
 * so those handlers are compiled for SSSE3 as a whole, between these two. */
#ifdef __SSSE3__
#define HOST_SHUFFLE_COMPILED true
#define ATTR_SHUFFLE_ACCEL
#define SHUFFLE_ACCEL_BEGIN
#define SHUFFLE_ACCEL_END
#else
#define HOST_SHUFFLE_COMPILED false
#define ATTR_SHUFFLE_ACCEL __attribute__((target("ssse3")))
#ifdef __clang__
#define SHUFFLE_ACCEL_BEGIN \
  _Pragma("clang attribute push (__attribute__((target(\"ssse3\"))), apply_to = function)")
#define SHUFFLE_ACCEL_END _Pragma("clang attribute pop")
#else
#define SHUFFLE_ACCEL_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"ssse3\")")
#define SHUFFLE_ACCEL_END _Pragma("GCC pop_options")
#endif
#endif

#define HAVE_AES_ACCEL (host_crypto_accel & HOST_CPU_AES)
#define HAVE_CLMUL_ACCEL (host_crypto_accel & HOST_CPU_CLMUL)
/* The host's own version of primitive p, for callers that choose the tier themselves
 * (the guest's crypto handlers, chosen at decode time). */
#define HOST_ACCEL(p) p##_accel
#define HAVE_SHA_ACCEL (host_crypto_accel & HOST_CPU_SHA)
#define HAVE_SHUFFLE_ACCEL (host_crypto_accel & HOST_CPU_SHUFFLE)

/* For host_cpu_detect() only. These instructions work on XMM registers alone, so they
 * need no OS support beyond SSE (no XSAVE check). SHA is in leaf 7, which an older CPU
 * may not have: __get_cpuid_count checks the highest leaf first and fails if it is
 * lower (a missing leaf reads as some other leaf's values). */
static inline uint32_t host_cpu_probe(void) {
  uint32_t found = HOST_CPU_DETECTED;
  unsigned a, b, c = 0, d;
  __get_cpuid(1, &a, &b, &c, &d);
  if (HOST_AES_COMPILED || (c & bit_AES))
    found |= HOST_CPU_AES;
  if (HOST_CLMUL_COMPILED || (c & bit_PCLMUL))
    found |= HOST_CPU_CLMUL;
  if (HOST_SHUFFLE_COMPILED || (c & bit_SSSE3))
    found |= HOST_CPU_SHUFFLE;
  bool sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
  if (HOST_SHA_COMPILED || sha)
    found |= HOST_CPU_SHA;
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

/* The round function is an immediate of the instruction, hence one call per value. */
static inline ATTR_SHA_ACCEL void sha1_rnds4_accel(Block128 *out, const Block128 *d,
                                                    const Block128 *s, unsigned f) {
  __m128i x = load_block(d), y = load_block(s);
  switch (f & 3) {
  case 0:
    x = _mm_sha1rnds4_epu32(x, y, 0);
    break;
  case 1:
    x = _mm_sha1rnds4_epu32(x, y, 1);
    break;
  case 2:
    x = _mm_sha1rnds4_epu32(x, y, 2);
    break;
  default:
    x = _mm_sha1rnds4_epu32(x, y, 3);
    break;
  }
  store_block(out, x);
}

static inline ATTR_SHA_ACCEL void sha1_nexte_accel(Block128 *out, const Block128 *d,
                                                    const Block128 *s) {
  store_block(out, _mm_sha1nexte_epu32(load_block(d), load_block(s)));
}

static inline ATTR_SHA_ACCEL void sha1_msg1_accel(Block128 *out, const Block128 *d,
                                                   const Block128 *s) {
  store_block(out, _mm_sha1msg1_epu32(load_block(d), load_block(s)));
}

static inline ATTR_SHA_ACCEL void sha1_msg2_accel(Block128 *out, const Block128 *d,
                                                   const Block128 *s) {
  store_block(out, _mm_sha1msg2_epu32(load_block(d), load_block(s)));
}

/* The intrinsic's operands are the instruction's: destination, source, XMM0. */
static inline ATTR_SHA_ACCEL void sha256_rnds2_accel(Block128 *out, const Block128 *d,
                                                      const Block128 *s, const Block128 *wk) {
  store_block(out, _mm_sha256rnds2_epu32(load_block(d), load_block(s), load_block(wk)));
}

static inline ATTR_SHA_ACCEL void sha256_msg1_accel(Block128 *out, const Block128 *d,
                                                     const Block128 *s) {
  store_block(out, _mm_sha256msg1_epu32(load_block(d), load_block(s)));
}

static inline ATTR_SHA_ACCEL void sha256_msg2_accel(Block128 *out, const Block128 *d,
                                                     const Block128 *s) {
  store_block(out, _mm_sha256msg2_epu32(load_block(d), load_block(s)));
}

static inline ATTR_SHUFFLE_ACCEL void byte_shuffle_accel(Block128 *out, const Block128 *table,
                                                      const uint8_t idx[16]) {
  store_block(out, _mm_shuffle_epi8(load_block(table), _mm_loadu_si128((const __m128i *)idx)));
}

static inline ATTR_SHUFFLE_ACCEL void byte_shuffle_pair_accel(Block128 *out, const Block128 *a,
                                                           const uint8_t ia[16], const Block128 *b,
                                                           const uint8_t ib[16]) {
  __m128i ra = _mm_shuffle_epi8(load_block(a), _mm_loadu_si128((const __m128i *)ia));
  __m128i rb = _mm_shuffle_epi8(load_block(b), _mm_loadu_si128((const __m128i *)ib));
  store_block(out, _mm_or_si128(ra, rb));
}

#endif
