/* aarch64/crypto_accel.h: the aarch64 host's tier of host_crypto.h: the ARMv8 crypto
 * extension (AESE, AESD, AESMC, AESIMC, PMULL; SHA1 and SHA256), detected with
 * getauxval(AT_HWCAP). Include host_crypto.h.
 *
 * Arm's AESE and AESD XOR the key first (AddRoundKey, then SubBytes and ShiftRows or
 * their inverses), x86's instructions last; with a zero key the Arm instruction is the
 * bare step and the x86 key is XORed after: AESENC = AESMC(AESE(s, 0)) ^ k,
 * AESDEC = AESIMC(AESD(s, 0)) ^ k. */
#ifndef X64EMU_HOST_CRYPTO_ACCEL_H
#define X64EMU_HOST_CRYPTO_ACCEL_H

#include <arm_neon.h>
#include <sys/auxv.h>

#define HOST_CRYPTO_ARCH "aarch64"
#define HOST_AES_NAME "ARMv8 AES"
#define HOST_CLMUL_NAME "ARMv8 PMULL"
#define HOST_SHA_NAME "ARMv8 SHA1/SHA256"
#define HOST_SHUFFLE_NAME "Advanced SIMD TBL"

/* TBL is Advanced SIMD, which every Armv8-A CPU and compiler has. */
#define HOST_SHUFFLE_COMPILED true
#define ATTR_SHUFFLE_ACCEL
#define SHUFFLE_ACCEL_BEGIN
#define SHUFFLE_ACCEL_END

/* Compile-time tier: the compiler already targets the crypto extension, so the code
 * below needs no target attribute and inlines into its caller. The features word still
 * decides, so that the portable tier can be forced at run time. (GCC 12 defines
 * __ARM_FEATURE_AES for +aes but declares the AES intrinsics for +crypto only.) */
#if defined(__ARM_FEATURE_CRYPTO) || (defined(__clang__) && defined(__ARM_FEATURE_AES))
#define HOST_AES_COMPILED true
#define HOST_CLMUL_COMPILED true
#define ATTR_CRYPTO_ACCEL
#elif defined(__clang__) && __clang_major__ < 16
/* Before Clang 16, arm_neon.h declares the crypto intrinsics only for a file built for
 * them, so a per-function target attribute cannot reach them. */
#error "Clang < 16: build with -march=armv8-a+crypto, or -DX64EMU_HOST_ARCH=generic"
#elif defined(__clang__)
#define HOST_AES_COMPILED false
#define HOST_CLMUL_COMPILED false
#define ATTR_CRYPTO_ACCEL __attribute__((target("aes")))
#else
#define HOST_AES_COMPILED false
#define HOST_CLMUL_COMPILED false
#define ATTR_CRYPTO_ACCEL __attribute__((target("+crypto")))
#endif

/* The SHA1 and SHA256 instructions are one feature to the compilers (__ARM_FEATURE_SHA2,
 * +sha2) and two to Linux (HWCAP_SHA1, HWCAP_SHA2). GCC 12's arm_neon.h declares their
 * intrinsics for +crypto only (with +sha2 alone they fail to inline), so for GCC both
 * tiers go by +crypto, which also allows AES instructions that the SHA code never uses. */
#if defined(__ARM_FEATURE_CRYPTO) ||                                                    \
    (defined(__clang__) && __clang_major__ >= 16 && defined(__ARM_FEATURE_SHA2))
#define HOST_SHA_COMPILED true
#define ATTR_SHA_ACCEL
#elif defined(__clang__) && __clang_major__ < 16
#error "Clang < 16: build with -march=armv8-a+crypto, or -DX64EMU_HOST_ARCH=generic"
#elif defined(__clang__)
#define HOST_SHA_COMPILED false
#define ATTR_SHA_ACCEL __attribute__((target("sha2")))
#else
#define HOST_SHA_COMPILED false
#define ATTR_SHA_ACCEL __attribute__((target("+crypto")))
#endif

#define HAVE_AES_ACCEL (host_crypto_accel & HOST_CPU_AES)
#define HAVE_CLMUL_ACCEL (host_crypto_accel & HOST_CPU_CLMUL)
/* The host's own version of primitive p, for callers that choose the tier themselves
 * (the guest's crypto handlers, chosen at decode time). */
#define HOST_ACCEL(p) p##_accel
#define HAVE_SHA_ACCEL (host_crypto_accel & HOST_CPU_SHA)
#define HAVE_SHUFFLE_ACCEL (host_crypto_accel & HOST_CPU_SHUFFLE)

/* For host_cpu_detect() only. */
static inline uint32_t host_cpu_probe(void) {
  uint32_t found = HOST_CPU_DETECTED | HOST_CPU_SHUFFLE;
  unsigned long hwcap = getauxval(AT_HWCAP);
  if (HOST_AES_COMPILED || (hwcap & HWCAP_AES))
    found |= HOST_CPU_AES;
  if (HOST_CLMUL_COMPILED || (hwcap & HWCAP_PMULL))
    found |= HOST_CPU_CLMUL;
  if (HOST_SHA_COMPILED || ((hwcap & HWCAP_SHA1) && (hwcap & HWCAP_SHA2)))
    found |= HOST_CPU_SHA;
  return found;
}

static inline uint8x16_t load_block(const Block128 *x) { return vld1q_u8(x->b); }

static inline void store_block(Block128 *x, uint8x16_t v) { vst1q_u8(x->b, v); }

static inline uint32x4_t load_dwords(const Block128 *x) { return vld1q_u32(x->d); }

static inline void store_dwords(Block128 *x, uint32x4_t v) { vst1q_u32(x->d, v); }

static inline ATTR_CRYPTO_ACCEL void aes_SB_SR_MC_AK_accel(Block128 *out, const Block128 *st,
                                                            const Block128 *rk) {
  uint8x16_t t = vaesmcq_u8(vaeseq_u8(load_block(st), vdupq_n_u8(0)));
  store_block(out, veorq_u8(t, load_block(rk)));
}

static inline ATTR_CRYPTO_ACCEL void aes_SB_SR_AK_accel(Block128 *out, const Block128 *st,
                                                         const Block128 *rk) {
  uint8x16_t t = vaeseq_u8(load_block(st), vdupq_n_u8(0));
  store_block(out, veorq_u8(t, load_block(rk)));
}

static inline ATTR_CRYPTO_ACCEL void aes_ISB_ISR_IMC_AK_accel(Block128 *out,
                                                               const Block128 *st,
                                                               const Block128 *rk) {
  uint8x16_t t = vaesimcq_u8(vaesdq_u8(load_block(st), vdupq_n_u8(0)));
  store_block(out, veorq_u8(t, load_block(rk)));
}

static inline ATTR_CRYPTO_ACCEL void aes_ISB_ISR_AK_accel(Block128 *out, const Block128 *st,
                                                           const Block128 *rk) {
  uint8x16_t t = vaesdq_u8(load_block(st), vdupq_n_u8(0));
  store_block(out, veorq_u8(t, load_block(rk)));
}

static inline ATTR_CRYPTO_ACCEL void aes_IMC_accel(Block128 *out, const Block128 *st) {
  store_block(out, vaesimcq_u8(load_block(st)));
}

/* AESE with a zero key gives SubBytes in ShiftRows order: SubBytes of byte j (row
 * j & 3) sits at (j - 4 * (j & 3)) & 15. One table lookup picks X1's and X3's bytes
 * from there in AESKEYGENASSIST's order (SubWord, then RotWord of it), then RCON is
 * XORed into the low byte of dwords 1 and 3. */
static inline ATTR_CRYPTO_ACCEL void aes_keygen_assist_accel(Block128 *out,
                                                              const Block128 *src,
                                                              uint8_t rcon) {
  static const uint8_t pick[16] = {4, 1, 14, 11, 1, 14, 11, 4, 12, 9, 6, 3, 9, 6, 3, 12};
  uint8x16_t sub = vaeseq_u8(load_block(src), vdupq_n_u8(0));
  uint8x16_t t = vqtbl1q_u8(sub, vld1q_u8(pick));
  uint8x16_t r = vreinterpretq_u8_u64(vdupq_n_u64((uint64_t)rcon << 32));
  store_block(out, veorq_u8(t, r));
}

static inline ATTR_CRYPTO_ACCEL void clmul_64x64_accel(Block128 *out, uint64_t a, uint64_t b) {
  store_block(out, vreinterpretq_u8_p128(vmull_p64((poly64_t)a, (poly64_t)b)));
}

/* SHA: x86 keeps a SHA-1 state or message run with its first word in the top dword
 * (A in d.d[3], W0 in s.d[3]), Arm in the bottom lane, so the SHA-1 primitives reverse
 * their operands and result. The SHA-256 message schedule is in the same order on both;
 * the SHA-256 state is split differently (below). */
static inline uint32x4_t reverse_dwords(uint32x4_t v) {
  v = vrev64q_u32(v);
  return vextq_u32(v, v, 2);
}

/* x86 adds K and takes E already added to the first round's W; Arm's SHA1C, SHA1P and
 * SHA1M add E themselves and leave K to software. So E is 0 and K goes into every W. */
static inline ATTR_SHA_ACCEL void sha1_rnds4_accel(Block128 *out, const Block128 *d,
                                                    const Block128 *s, unsigned f) {
  static const uint32_t k[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6};
  uint32x4_t abcd = reverse_dwords(load_dwords(d));
  uint32x4_t wk = vaddq_u32(reverse_dwords(load_dwords(s)), vdupq_n_u32(k[f & 3]));
  switch (f & 3) {
  case 0:
    abcd = vsha1cq_u32(abcd, 0, wk);
    break;
  case 2:
    abcd = vsha1mq_u32(abcd, 0, wk);
    break;
  default:
    abcd = vsha1pq_u32(abcd, 0, wk);
    break;
  }
  store_dwords(out, reverse_dwords(abcd));
}

/* SHA1H is the ROL 30. */
static inline ATTR_SHA_ACCEL void sha1_nexte_accel(Block128 *out, const Block128 *d,
                                                    const Block128 *s) {
  uint32x4_t e = vsetq_lane_u32(vsha1h_u32(d->d[3]), vdupq_n_u32(0), 3);
  store_dwords(out, vaddq_u32(load_dwords(s), e));
}

/* SHA1SU0 is an EXT and two EORs; with x86's lane order it needs three reversals, while
 * one EXT lines each word up with the word two after it: W[i] ^ W[i+2], W0 in d.d[3],
 * W4 and W5 in s.d[3] and s.d[2]. */
static inline void sha1_msg1_accel(Block128 *out, const Block128 *d, const Block128 *s) {
  uint32x4_t w = load_dwords(d);
  store_dwords(out, veorq_u32(w, vextq_u32(load_dwords(s), w, 2)));
}

/* SHA1SU1 computes W16..W19 from the partial sums and W13..W15, W16 feeding W19, as
 * x86's SHA1MSG2 does, in the other lane order. */
static inline ATTR_SHA_ACCEL void sha1_msg2_accel(Block128 *out, const Block128 *d,
                                                   const Block128 *s) {
  uint32x4_t w = vsha1su1q_u32(reverse_dwords(load_dwords(d)), reverse_dwords(load_dwords(s)));
  store_dwords(out, reverse_dwords(w));
}

/* x86 holds the state as C,D,G,H (d.d[3..0]) and A,B,E,F (s.d[3..0]) and does two
 * rounds; Arm holds A,B,C,D and E,F,G,H (first word in lane 0) and SHA256H and SHA256H2
 * do four. Each Arm round shifts its new A and E into lane 0, so after four rounds
 * lanes 2 and 3 hold the A and E of rounds 2 and 1, which are A, B, E and F after two;
 * they depend only on wk.d[0] and wk.d[1], so wk.d[2..3] may be anything. */
static inline ATTR_SHA_ACCEL void sha256_rnds2_accel(Block128 *out, const Block128 *d,
                                                      const Block128 *s, const Block128 *wk) {
  uint64x2_t cdgh = vreinterpretq_u64_u32(load_dwords(d));
  uint64x2_t abef = vreinterpretq_u64_u32(load_dwords(s));
  uint32x4_t abcd = vrev64q_u32(vreinterpretq_u32_u64(vzip2q_u64(abef, cdgh)));
  uint32x4_t efgh = vrev64q_u32(vreinterpretq_u32_u64(vzip1q_u64(abef, cdgh)));
  uint32x4_t w = load_dwords(wk);
  uint32x4_t abcd4 = vsha256hq_u32(abcd, efgh, w);
  uint32x4_t efgh4 = vsha256h2q_u32(efgh, abcd, w);
  uint64x2_t feba = vzip2q_u64(vreinterpretq_u64_u32(efgh4), vreinterpretq_u64_u32(abcd4));
  store_dwords(out, vrev64q_u32(vreinterpretq_u32_u64(feba)));
}

static inline ATTR_SHA_ACCEL void sha256_msg1_accel(Block128 *out, const Block128 *d,
                                                     const Block128 *s) {
  store_dwords(out, vsha256su0q_u32(load_dwords(d), load_dwords(s)));
}

/* SHA256SU1 also adds the W[t-7] terms (W9..W12, from its second and third operands);
 * x86's software adds them before SHA256MSG2, so they are zero here: a zero second
 * operand, and W14, W15 alone in the third. */
static inline ATTR_SHA_ACCEL void sha256_msg2_accel(Block128 *out, const Block128 *d,
                                                     const Block128 *s) {
  uint64x2_t w14_15 = vsetq_lane_u64(0, vreinterpretq_u64_u32(load_dwords(s)), 0);
  uint32x4_t w = vsha256su1q_u32(load_dwords(d), vdupq_n_u32(0), vreinterpretq_u32_u64(w14_15));
  store_dwords(out, w);
}

/* TBL gives 0 for an index of 16 or more: keeping bit 7 (and the low four) makes an
 * index with its top bit set such an index, as PSHUFB wants. */
static inline uint8x16_t shuffle_index(const uint8_t idx[16]) {
  return vandq_u8(vld1q_u8(idx), vdupq_n_u8(0x8F));
}

static inline void byte_shuffle_accel(Block128 *out, const Block128 *table, const uint8_t idx[16]) {
  store_block(out, vqtbl1q_u8(load_block(table), shuffle_index(idx)));
}

static inline void byte_shuffle_pair_accel(Block128 *out, const Block128 *a, const uint8_t ia[16],
                                           const Block128 *b, const uint8_t ib[16]) {
  uint8x16_t ra = vqtbl1q_u8(load_block(a), shuffle_index(ia));
  uint8x16_t rb = vqtbl1q_u8(load_block(b), shuffle_index(ib));
  store_block(out, vorrq_u8(ra, rb));
}

#endif
