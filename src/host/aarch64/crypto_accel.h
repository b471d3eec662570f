/* aarch64/crypto_accel.h: the aarch64 host's tier of host_crypto.h: the ARMv8 crypto
 * extension (AESE, AESD, AESMC, AESIMC, PMULL), detected with getauxval(AT_HWCAP).
 * Include host_crypto.h.
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

/* Compile-time tier: the compiler already targets the crypto extension, so the code
 * below needs no target attribute and inlines into its caller. The features word still
 * decides, so that the portable tier can be forced at run time. */
#if defined(__ARM_FEATURE_AES) || defined(__ARM_FEATURE_CRYPTO)
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

#define HAVE_AES_ACCEL (host_crypto_accel & HOST_CPU_AES)
#define HAVE_CLMUL_ACCEL (host_crypto_accel & HOST_CPU_CLMUL)

/* For host_cpu_detect() only. */
static inline uint32_t host_cpu_probe(void) {
  uint32_t found = HOST_CPU_DETECTED;
  unsigned long hwcap = getauxval(AT_HWCAP);
  if (HOST_AES_COMPILED || (hwcap & HWCAP_AES))
    found |= HOST_CPU_AES;
  if (HOST_CLMUL_COMPILED || (hwcap & HWCAP_PMULL))
    found |= HOST_CPU_CLMUL;
  return found;
}

static inline uint8x16_t load_block(const Block128 *x) { return vld1q_u8(x->b); }

static inline void store_block(Block128 *x, uint8x16_t v) { vst1q_u8(x->b, v); }

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

#endif
